// npm run test:package: the tests of the packed tarball, kept out of `npm test` (package.json's
// "ava" leaves test/package out) because they need fresh prebuilds and an npm install.
export default {
  files: ['dist/test/package/**/*.test.js'],
  workerThreads: false,
  timeout: '10m',
};
