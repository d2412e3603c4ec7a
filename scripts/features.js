#!/usr/bin/env node
// Chooses the build features (spec, cross-cutting rule 6) when the package is built:
// TESSERA_FEATURES=memory,rerank,mcp (the default: all; mcp needs memory) or TESSERA_FEATURES= (none) writes the list to
// dist/lib/features/built.json, which lib/features/built.ts reads at load.
const fs = require('node:fs');
const path = require('node:path');

const ALL = ['memory', 'rerank', 'mcp'];
const given = process.env.TESSERA_FEATURES;
const chosen = given === undefined ? ALL : given.split(',').map((f) => f.trim()).filter(Boolean);
const unknown = chosen.filter((f) => !ALL.includes(f));
if (unknown.length > 0) {
  console.error(`TESSERA_FEATURES: unknown feature ${unknown.join(', ')}; known: ${ALL.join(', ')}`);
  process.exit(2);
}
if (chosen.includes('mcp') && !chosen.includes('memory')) {
  console.error('TESSERA_FEATURES: mcp needs memory');
  process.exit(2);
}
const out = path.join(__dirname, '..', 'dist', 'lib', 'features', 'built.json');
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, `${JSON.stringify(ALL.filter((f) => chosen.includes(f)))}\n`);
