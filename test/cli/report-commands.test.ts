// `footfall report subscribe|list|unsubscribe|send` as an operator runs them, with mail through a real
// SMTP server on loopback: an outside address gets a confirmation only; a vouched-for one (--confirmed)
// the report due at --now, once; `send` goes through the running server when it owns the data dir;
// refusals name what to do, and no output holds the SMTP password or a link's secret.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FOOTFALL_BIN } from '../helpers/footfall-bin.js';
import { addDays } from '../../src/domain/report-range.js';
import { dayStart, isoWeekStart, localDay } from '../../src/domain/zoned-time.js';
import { CLI_ENV } from './fixtures/cli-run.js';
import { startServe } from './fixtures/serve-process.js';
import { SMTP_PASSWORD, startSmtpServer, TEST_CA_FILE, type SmtpTestServer } from '../http/helpers/smtp-test-server.js';

const ZONE = 'Asia/Kathmandu';
let smtp: SmtpTestServer;
let dataDir: string;
let env: Record<string, string>;
let site: string;
const outputs: string[] = [];

function footfall(extra: Record<string, string> | null, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [FOOTFALL_BIN, ...args, '--data-dir', dataDir],
      { env: { ...CLI_ENV, ...(extra ?? env) } },
      (err, stdout, stderr) => {
        outputs.push(stdout, stderr);
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    ),
  );
}

async function ok(...args: string[]) {
  const r = await footfall(null, ...args, '--json');
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.stdout} ${r.stderr}`);
  return JSON.parse(r.stdout.trim());
}

async function refused(extra: Record<string, string> | null, args: string[], code: string, message: RegExp) {
  const r = await footfall(extra, ...args, '--json');
  assert.notEqual(r.code, 0, args.join(' '));
  const e = JSON.parse(r.stdout.trim()).error;
  assert.equal(e.code, code, r.stdout);
  assert.match(e.message, message);
}

// the local week under way now in Kathmandu; its report is due at 00:00 on the next Monday there
const nowMs = Date.now();
const week = isoWeekStart(localDay(ZONE, nowMs));
const weekStartMs = dayStart(ZONE, week);
const dueMs = dayStart(ZONE, addDays(week, 7));
// inside the week and in the past, whatever the hour this runs at
const thisWeek = (i: number) => new Date(weekStartMs + Math.floor((nowMs - weekStartMs) / 2) + i * 1000).toISOString();
const weekBefore = (i: number) => new Date(Date.parse(thisWeek(i)) - 7 * 86_400_000).toISOString();

before(async () => {
  smtp = await startSmtpServer();
  dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-cli-report-')), 'data');
  env = {
    FOOTFALL_PUBLIC_URL: 'https://stats.example.com',
    FOOTFALL_SMTP_URL: smtp.url,
    FOOTFALL_MAIL_FROM: 'Footfall <reports@example.com>',
    FOOTFALL_SMTP_CA: TEST_CA_FILE,
  };
  const ws = (await ok('workspace', 'create', '--name', 'Acme', '--plan', 'pro')).workspace_id;
  site = (
    await ok(
      'site',
      'create',
      '--workspace',
      ws,
      '--name',
      'Shop',
      '--hostname',
      'shop.example.com',
      '--profile',
      'extended',
      '--timezone',
      ZONE,
    )
  ).site_id;
  const line = (ts: string, p: string, v: string) => JSON.stringify({ ts, type: 'pageview', site_id: site, path: p, visitor_key: v });
  const file = path.join(path.dirname(dataDir), 'events.ndjson');
  fs.writeFileSync(
    file,
    [line(thisWeek(0), '/', 'a'), line(thisWeek(1), '/pricing', 'b'), line(thisWeek(2), '/', 'c'), line(weekBefore(0), '/', 'a')].join(
      '\n',
    ) + '\n',
  );
  await ok('import', 'events', file);
});
after(async () => {
  await smtp.close();
  fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
});

test('subscribe, list, send once at --now, through the running server too, unsubscribe', async () => {
  const out = await ok('report', 'subscribe', '--site', site, '--email', 'Outside@Example.org', '--period', 'week');
  assert.deepEqual(
    [out.email, out.period, out.confirmed, out.created, out.confirmation_mailed],
    ['outside@example.org', 'week', false, true, true],
  );
  const confirmation = await smtp.nth(1);
  assert.deepEqual(confirmation.to, ['outside@example.org']);
  assert.match(confirmation.body, /https:\/\/stats\.example\.com\/app\/reports\/confirm\/[0-9A-Za-z]{32}/);
  const boss = await ok('report', 'subscribe', '--site', site, '--email', 'boss@example.org', '--period', 'week', '--confirmed');
  assert.deepEqual([boss.confirmed, boss.created], [true, true]);
  const again = await ok('report', 'subscribe', '--site', site, '--email', 'boss@example.org', '--period', 'week', '--confirmed');
  assert.deepEqual([again.subscription_id, again.created], [boss.subscription_id, false]);
  const listed = await ok('report', 'list', '--site', site);
  assert.deepEqual(
    listed.subscriptions.map((s: { email: string; confirmed: boolean }) => [s.email, s.confirmed]),
    [
      ['outside@example.org', false],
      ['boss@example.org', true],
    ],
  );
  const text = await footfall(null, 'report', 'list', '--site', site);
  assert.match(text.stdout, /outside@example\.org {2}week {2}awaiting confirmation/);

  assert.deepEqual(await ok('report', 'send', '--now', new Date(dueMs - 1000).toISOString()), {
    now: new Date(dueMs - 1000).toISOString(),
    sent: 0,
    retrying: 0,
    failed: 0,
  });
  const sent = await ok('report', 'send', '--now', new Date(dueMs + 60_000).toISOString());
  assert.deepEqual([sent.sent, sent.retrying, sent.failed], [1, 0, 0]);
  const report = await smtp.nth(2);
  assert.deepEqual(report.to, ['boss@example.org']);
  assert.match(report.headers.subject, /^Weekly report for Shop: /);
  assert.match(report.headers['list-unsubscribe'], /^<https:\/\/stats\.example\.com\/app\/reports\/unsubscribe\/rep_/);
  assert.match(report.body, /Visitors\s+3\s+1\s+\+200%/);
  assert.equal((await ok('report', 'send', '--now', new Date(dueMs + 120_000).toISOString())).sent, 0, 'once per period');

  // with a server on the data dir (it owns the DuckDB file), send goes through it
  const server = await startServe(dataDir, [], { ...env, FOOTFALL_LOG_LEVEL: 'warn' });
  try {
    const next = await ok('report', 'send', '--now', new Date(dueMs + 7 * 86_400_000 + 60_000).toISOString());
    assert.equal(next.sent, 1);
    assert.deepEqual((await smtp.nth(3)).to, ['boss@example.org']);
  } finally {
    server.proc.kill('SIGTERM');
    await server.exited;
  }
  assert.deepEqual(await ok('report', 'unsubscribe', boss.subscription_id), { subscription_id: boss.subscription_id, unsubscribed: true });
  assert.deepEqual(
    (await ok('report', 'list', '--site', site)).subscriptions.map((s: { email: string }) => s.email),
    ['outside@example.org'],
  );
  assert.equal(smtp.received.length, 3);
});

test('refusals name what to do; no output holds the SMTP password or a link secret', async () => {
  await refused(
    null,
    ['report', 'subscribe', '--site', site, '--email', 'x@example.org', '--period', 'day'],
    'INVALID_ARGUMENTS',
    /--period must be one of week, month/,
  );
  await refused(null, ['report', 'subscribe', '--site', site, '--period', 'week'], 'INVALID_ARGUMENTS', /missing --email/);
  await refused(
    null,
    ['report', 'subscribe', '--site', 'site_nope', '--email', 'x@example.org', '--period', 'week'],
    'NOT_FOUND',
    /unknown site/,
  );
  await refused(
    null,
    ['report', 'subscribe', '--site', site, '--email', 'not an address', '--period', 'week'],
    'INVALID_PARAMS',
    /one address/,
  );
  await refused(
    null,
    ['report', 'subscribe', '--site', site, '--tenant', 'ten_nope', '--email', 'x@example.org', '--period', 'week'],
    'NOT_FOUND',
    /unknown tenant/,
  );
  await refused(null, ['report', 'send', '--now', 'tomorrow'], 'INVALID_ARGUMENTS', /--now must be an ISO 8601 instant/);
  await refused(null, ['report', 'unsubscribe', 'rep_nope'], 'NOT_FOUND', /unknown report subscription/);
  const noMail = { FOOTFALL_PUBLIC_URL: env.FOOTFALL_PUBLIC_URL };
  await refused(
    noMail,
    ['report', 'subscribe', '--site', site, '--email', 'x@example.org', '--period', 'week'],
    'CONFLICT',
    /FOOTFALL_SMTP_URL/,
  );
  await refused(noMail, ['report', 'send'], 'MAIL_NOT_CONFIGURED', /FOOTFALL_SMTP_URL/);
  const secrets = [SMTP_PASSWORD, encodeURIComponent(SMTP_PASSWORD)];
  for (const m of smtp.received) secrets.push(...(m.body.match(/\/app\/reports\/(?:confirm|unsubscribe)\/[^\s"<>]+/g) ?? []));
  for (const o of outputs) for (const s of secrets) assert.ok(!o.includes(s), `an output holds ${s}`);
});
