#!/usr/bin/env node
// Chooses the build features (spec, cross-cutting rule 6) when the package is built:
// TESSERA_FEATURES=memory,rerank,mcp,code (the default: all; mcp and code need memory) or TESSERA_FEATURES= (none) writes the list to
// dist/lib/features/built.json, which lib/features/built.ts reads at load.
const fs = require('node:fs');
const path = require('node:path');

const ALL = ['memory', 'rerank', 'mcp', 'code'];
/** Features built on another: MCP's tools and code's ingestion and search use memory's embedder. */
const NEEDS = { mcp: 'memory', code: 'memory' };
const given = process.env.TESSERA_FEATURES;
const chosen = given === undefined ? ALL : given.split(',').map((f) => f.trim()).filter(Boolean);
const unknown = chosen.filter((f) => !ALL.includes(f));
if (unknown.length > 0) {
  console.error(`TESSERA_FEATURES: unknown feature ${unknown.join(', ')}; known: ${ALL.join(', ')}`);
  process.exit(2);
}
for (const f of chosen) {
  if (NEEDS[f] && !chosen.includes(NEEDS[f])) {
    console.error(`TESSERA_FEATURES: feature ${f} needs feature ${NEEDS[f]}`);
    process.exit(2);
  }
}
const out = path.join(__dirname, '..', 'dist', 'lib', 'features', 'built.json');
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, `${JSON.stringify(ALL.filter((f) => chosen.includes(f)))}\n`);
