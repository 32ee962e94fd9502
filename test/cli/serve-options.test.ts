// `footfall serve` takes every setting of the configuration table as a flag, --query-timeout-ms included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { registerServe } from '../../src/cli/serve.js';
import type { CliError } from '../../src/cli/output.js';
import { startServe } from './fixtures/serve-process.js';

test('serve --query-timeout-ms: a bad value is named with its variable, a good one serves', { timeout: 60_000 }, async () => {
  const program = new Command('footfall').exitOverride();
  registerServe(program);
  await assert.rejects(
    program.parseAsync(['node', 'footfall', 'serve', '--query-timeout-ms', '1e3', '--port', '99999']),
    (err: CliError) => {
      assert.equal(err.code, 'INVALID_CONFIG');
      assert.match(err.message, /FOOTFALL_QUERY_TIMEOUT_MS \(--query-timeout-ms\): "1e3" must be a positive integer of milliseconds/);
      assert.match(err.message, /FOOTFALL_PORT/, 'every bad setting at once');
      return true;
    },
  );

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-serve-opts-'));
  const server = await startServe(dataDir, ['--query-timeout-ms', '2500']);
  try {
    assert.equal((await fetch(`${server.address}/healthz`)).status, 200);
  } finally {
    server.proc.kill('SIGTERM');
    await server.exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
