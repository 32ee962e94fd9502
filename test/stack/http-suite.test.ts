// The HTTP suite (test/http/*.test.ts), run a second time with the same expectations on the scale
// stack: PostgreSQL control plane, Redis limiter, ClickHouse events (two shards when the cluster
// variables are set). The harness picks the stack from FOOTFALL_TEST_STACK (test/http/helpers/stack.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { missingScaleEnv } from '../http/helpers/stack.js';

const missing = missingScaleEnv();
const skip = process.env.FOOTFALL_TEST_STACK === 'scale'
  ? 'already on the scale stack'
  : missing.length ? `${missing.join(', ')} not set (scripts/services.sh start prints them)` : false;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test('the HTTP suite passes on PostgreSQL + Redis + ClickHouse too', { skip, timeout: 30 * 60_000 }, async (t) => {
  const dir = path.join(ROOT, 'test/http');
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.test.ts')).sort().map((f) => path.join('test/http', f));
  assert.ok(files.length > 10);
  // NODE_TEST_CONTEXT would make the child talk the runner's internal protocol instead of TAP
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', ...files], {
    cwd: ROOT,
    env: { ...env, FOOTFALL_TEST_STACK: 'scale' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  const stat = (k: string) => Number(new RegExp(`^# ${k} (\\d+)$`, 'm').exec(out)?.[1] ?? NaN);
  const failed = out.split('\n').filter((l) => /^\s*not ok /.test(l));
  t.diagnostic(`scale stack: ${stat('tests')} tests, ${stat('pass')} passed, ${stat('fail')} failed, ${stat('skipped')} skipped`);
  assert.equal(code, 0, `${failed.join('\n')}\n${out.slice(-4000)}`);
  assert.equal(stat('fail'), 0);
  assert.equal(stat('skipped'), 0, 'nothing is skipped on the scale stack');
  assert.ok(stat('pass') > 50, `only ${stat('pass')} passed`);
});
