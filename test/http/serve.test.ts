// The container and `footfall serve` refuse bad or unsupported settings clearly, naming each.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Command } from 'commander';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/config.js';
import { buildContainer } from '../../src/container.js';
import { registerServe } from '../../src/cli/serve.js';
import type { CliError } from '../../src/cli/output.js';

test('buildContainer with an unreachable ClickHouse fails before creating anything in the data dir', async () => {
  const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-ct-')), 'data');
  const config = loadConfig({ dataDir, eventsUrl: 'clickhouse+http://h:8123/db' }, {});
  await assert.rejects(buildContainer(config), (err: Error) => {
    assert.match(err.message, /ClickHouse/);
    return true;
  });
  assert.equal(fs.existsSync(dataDir), false, 'nothing was created');
  fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
});

test('footfall serve with bad settings stops with a message naming every bad one', async () => {
  const program = new Command('footfall').exitOverride();
  registerServe(program);
  const saved = { port: process.env.FOOTFALL_PORT, level: process.env.FOOTFALL_LOG_LEVEL };
  process.env.FOOTFALL_PORT = '99999';
  process.env.FOOTFALL_LOG_LEVEL = 'loud';
  try {
    await assert.rejects(program.parseAsync(['node', 'footfall', 'serve', '--host', 'bad host!']), (err: CliError) => {
      assert.equal(err.code, 'INVALID_CONFIG');
      assert.match(err.message, /FOOTFALL_PORT/);
      assert.match(err.message, /FOOTFALL_LOG_LEVEL/);
      assert.match(err.message, /FOOTFALL_HOST/);
      return true;
    });
  } finally {
    for (const [k, v] of [
      ['FOOTFALL_PORT', saved.port],
      ['FOOTFALL_LOG_LEVEL', saved.level],
    ] as const)
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
});
