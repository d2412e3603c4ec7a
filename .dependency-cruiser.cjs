// The layering of lib/, checked by `npm run lint:deps` inside `npm test` (dependency-cruiser):
// a new import cycle, or an import across these lines, fails CI. Type-only imports count (the
// TypeScript here is the native compiler, whose API dependency-cruiser cannot use to tell them).
/** @type {import('dependency-cruiser').IDependencyCruiserConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycle anywhere in lib/: every module can be read (and loaded) after the ones it imports.',
      severity: 'error',
      from: { path: '^lib/' },
      to: { circular: true },
    },
    {
      name: 'http-is-generic',
      comment: 'lib/http is the HTTP kit (server, hooks, replies): it knows no route, store or feature.',
      severity: 'error',
      from: { path: '^lib/http/' },
      to: { path: '^lib/(api|contract|route_kit|store|features|client|cli)' },
    },
    {
      name: 'contract-is-data',
      comment: 'lib/contract (the route table, the wire schemas, their validation) is below everything that serves or calls a route.',
      severity: 'error',
      from: { path: '^lib/contract/' },
      to: { path: '^lib/', pathNot: '^lib/(contract/|exact_json\\.ts$|types\\.ts$|options\\.ts$)' },
    },
    {
      name: 'store-below-http',
      comment: 'The library (lib/store) runs without a server: it imports no HTTP, route or CLI module.',
      severity: 'error',
      from: { path: '^lib/store/' },
      to: { path: '^lib/(http|api|client|cli)' },
    },
    {
      name: 'store-imports-no-feature',
      comment: 'The library core knows no feature: each adds to it through a StoreExtension it installs itself.',
      severity: 'error',
      from: { path: '^lib/store/' },
      to: { path: '^lib/features/' },
    },
    {
      name: 'client-loads-no-native-code',
      comment:
        'tessera/client needs no addon: it imports its own modules, the pure ones below, and types only (import type) of the rest.',
      severity: 'error',
      from: { path: '^lib/client/' },
      to: { path: '^lib/', pathNot: '^lib/(client/|contract/(routes|schemas)\\.ts$|exact_json\\.ts$|store/(errors|body)\\.ts$|(types|options)\\.ts$)' },
    },
    {
      name: 'client-pure-modules-stay-pure',
      comment: 'The modules the client loads load nothing else of lib/.',
      severity: 'error',
      from: { path: '^lib/(contract/(routes|schemas)|exact_json|store/(errors|body)|types|options)\\.ts$' },
      to: { path: '^lib/', pathNot: '^lib/(contract/(routes|schemas)|exact_json|store/(errors|body)|types|options)\\.ts$' },
    },
    {
      name: 'features-use-the-route-kit',
      comment: 'A feature builds its routes with lib/route_kit, never from the core routes of lib/api.',
      severity: 'error',
      from: { path: '^lib/features/' },
      to: { path: '^lib/api/' },
    },
    {
      name: 'route-kit-below-routes',
      comment: 'lib/route_kit serves the core routes and the features alike: it imports neither.',
      severity: 'error',
      from: { path: '^lib/route_kit/' },
      to: { path: '^lib/(api|features)/' },
    },
    {
      name: 'native-behind-the-library',
      comment: 'The addon is reached through the library, never from routes or features directly.',
      severity: 'error',
      from: { path: '^lib/(api|route_kit|http|features|client)/' },
      to: { path: '^lib/native\\.ts$' },
    },
    {
      name: 'serve-mounts-families-by-contract',
      comment: 'tessera serve knows the families only as Features (flags, routes, metrics, a way of serving): it imports no family module.',
      severity: 'error',
      from: { path: '^lib/cli/serve\\.ts$' },
      to: { path: '^lib/features/', pathNot: '^lib/features/(index|feature)\\.ts$' },
    },
    {
      name: 'api-below-cli',
      comment: 'The routes run under any server assembly (the CLI, the tests): none imports the CLI.',
      severity: 'error',
      from: { path: '^lib/(api|route_kit|http|store|features)/' },
      to: { path: '^lib/cli' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.mts', '.d.ts', '.js', '.json'] },
  },
};
