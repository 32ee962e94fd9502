// The `footfall` a user runs: bin/footfall.js, which runs the JavaScript of dist/. Every test that
// spawns it takes its path from here, and this refuses a dist/ older than src/, so that what is tested
// is what src/ says (`npm test` builds it first, in pretest).
import { fileURLToPath } from 'node:url';
import { staleOutputs } from '../../scripts/build-server.js';

export const FOOTFALL_BIN = fileURLToPath(new URL('../../bin/footfall.js', import.meta.url));
/** What `npm start` runs (package.json's start script; its prestart builds dist/). */
export const FOOTFALL_START = fileURLToPath(new URL('../../dist/cli/start.js', import.meta.url));

const stale = staleOutputs();
if (stale.length)
  throw new Error(
    `dist/ is not built from the current src/ (${stale.slice(0, 3).join(', ')}${stale.length > 3 ? ` and ${stale.length - 3} more` : ''}): ` +
      'run `npm run build:server` (npm test does it first)',
  );
