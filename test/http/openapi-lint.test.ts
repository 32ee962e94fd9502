// `redocly lint` (the recommended rules, redocly.yaml) of the document the server serves: no error
// and no warning. @redocly/cli is a devDependency run offline: telemetry and the update check are
// off, so it opens no connection.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { harness } from './helpers/harness.js';

const run = promisify(execFile);

test('redocly lint finds no error and no warning in the served OpenAPI document', async () => {
  const h = await harness({ collect: true }); // as a server serves it: with the collection routes
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-lint-'));
  try {
    const file = path.join(dir, 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(h.checker.doc, null, 2));
    const cli = path.resolve('node_modules/@redocly/cli/bin/cli.js');
    const { stdout } = await run(process.execPath, [cli, 'lint', file, '--config', path.resolve('redocly.yaml'), '--format=json'], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      timeout: 120_000,
      maxBuffer: 16 << 20,
    }).catch((err: { stdout?: string; stderr?: string; message: string }) => {
      assert.fail(`redocly lint failed: ${err.message}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
    });
    const report = JSON.parse(stdout) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
    };
    const problems = report.problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    assert.deepEqual(report.totals, { ...report.totals, errors: 0, warnings: 0 }, problems.join('\n'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await h.close();
  }
});
