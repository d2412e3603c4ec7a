#!/usr/bin/env node
// Part of `npm run compile`: tsc emits only JavaScript, so the web console's page, script and style
// sheet (lib/http/console/) are copied beside the compiled route that serves them
// (dist/lib/http/console/), which the package ships with the rest of dist/lib. The old copy goes
// first, so a file removed from lib/ is not served from a stale dist/.
const fs = require('node:fs');
const path = require('node:path');

const from = path.join(__dirname, '..', 'lib', 'http', 'console');
const to = path.join(__dirname, '..', 'dist', 'lib', 'http', 'console');
fs.rmSync(to, { recursive: true, force: true });
fs.cpSync(from, to, { recursive: true });
