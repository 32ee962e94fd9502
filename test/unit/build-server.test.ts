// `npm run build:server` (prepare, pretest, prestart): dist/ is rewritten only when a source is newer
// than its output, and then each file is replaced whole, so an `npm start` never changes modules under
// a footfall that is running from dist/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { buildServer, serverSources, staleOutputs } from '../../scripts/build-server.js';

function leftovers(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.tmp'));
}

test('build:server writes nothing while dist/ is as new as src/, and rebuilds a stale output whole', async () => {
  await buildServer();
  assert.deepEqual(staleOutputs(), []);
  const again = await buildServer();
  assert.equal(again.skipped, true, 'nothing to do');

  const { source, output } = serverSources().find((s) => s.source.endsWith(path.join('cli', 'main.ts')))!;
  const past = new Date(fs.statSync(source).mtimeMs - 60_000);
  fs.utimesSync(output, past, past);
  const stale = staleOutputs();
  assert.equal(stale.length, 1);
  assert.ok(source.endsWith(stale[0]), `${stale[0]} is the source whose output is older`);
  const rebuilt = await buildServer();
  assert.equal(rebuilt.skipped, false);
  assert.ok(fs.statSync(output).mtimeMs >= fs.statSync(source).mtimeMs, 'the output is new again');
  assert.deepEqual(staleOutputs(), []);
  assert.deepEqual(leftovers(path.dirname(path.dirname(output))), [], 'no temporary file is left in dist/');
});
