// The ESM entry (package.json "exports", import condition): re-exports the CommonJS build, whose
// named exports Node's loader detects, so `import` and `require` share one addon and one Store class.
export * from './index.js';
