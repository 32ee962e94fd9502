#!/usr/bin/env node
// Runs the command line compiled to JavaScript (dist/, built by `npm ci` through prepare): no
// TypeScript compiler at each call, so a command answers at once.
import fs from 'node:fs';
import module from 'node:module';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!fs.existsSync(main)) {
  process.stderr.write('footfall: the command line is not built (dist/cli/main.js is missing): run `npm run build` in the footfall folder\n');
  process.exit(1);
}
// Node 22.1+ keeps the compiled code of the modules between calls (absent on Node 20: nothing to do).
module.enableCompileCache?.();
await import(main.href);
