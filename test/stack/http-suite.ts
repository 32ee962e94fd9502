// The HTTP suite (test/http/*.test.ts), run a second time with the same expectations on the scale
// stack: PostgreSQL control plane, Redis limiter, ClickHouse events (two shards when the cluster
// variables are set). The harness picks the stack from FOOTFALL_TEST_STACK (test/http/helpers/stack.ts).
// The files are dealt round-robin into parts, one test file per part (http-suite-<k>.test.ts), so the
// runner can run the parts beside each other and beside the other suites: one child running all 53
// files one after another was the longest single file of the run (8 minutes of a 33-minute run).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { missingScaleEnv } from '../http/helpers/stack.js';
import { unavailable } from '../helpers/services.js';

export const HTTP_SUITE_PARTS = 3;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The files of part `k` (1-based) of the HTTP suite. */
export function httpSuitePart(k: number): string[] {
  const dir = path.join(ROOT, 'test/http');
  const all = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.test.ts'))
    .sort();
  return all.filter((_, i) => i % HTTP_SUITE_PARTS === k - 1).map((f) => path.join('test/http', f));
}

/** Registers the test that runs part `k` of the HTTP suite on the scale stack in a child process. */
export function httpSuitePartTest(k: number): void {
  const missing = missingScaleEnv();
  const skip =
    process.env.FOOTFALL_TEST_STACK === 'scale'
      ? 'already on the scale stack'
      : missing.length
        ? unavailable(`${missing.join(', ')} not set (scripts/services.sh start prints them)`)
        : false;
  test(`the HTTP suite passes on PostgreSQL + Redis + ClickHouse too (part ${k} of ${HTTP_SUITE_PARTS})`, {
    skip,
    timeout: 30 * 60_000,
  }, async (t) => {
    const files = httpSuitePart(k);
    assert.ok(files.length > 10, `part ${k} has only ${files.length} files`);
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
    const stat = (key: string) => Number(new RegExp(`^# ${key} (\\d+)$`, 'm').exec(out)?.[1] ?? NaN);
    const failed = out.split('\n').filter((l) => /^\s*not ok /.test(l));
    t.diagnostic(
      `scale stack, part ${k}: ${stat('tests')} tests, ${stat('pass')} passed, ${stat('fail')} failed, ${stat('skipped')} skipped`,
    );
    assert.equal(code, 0, `${failed.join('\n')}\n${out.slice(-4000)}`);
    assert.equal(stat('fail'), 0);
    assert.equal(stat('skipped'), 0, 'nothing is skipped on the scale stack');
    // at least a pass per file of the part (over the three parts, more than the 50 the single run asked for)
    assert.ok(stat('pass') >= files.length, `only ${stat('pass')} passed in ${files.length} files`);
  });
}
