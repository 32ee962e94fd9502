// Two `footfall report send` processes at once on one PostgreSQL control plane and ClickHouse (cron on
// two hosts, or two servers' sweeps): every subscriber gets the report due exactly once, and a third
// run sends nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { openPostgresControlPlane } from '../../src/control/postgres/open.js';
import { missingScaleEnv, scratchDatabase } from '../http/helpers/stack.js';
import { scratchUrl } from '../engines/clickhouse-scratch.js';
import { unavailable } from '../helpers/services.js';
import { FOOTFALL_BIN } from '../helpers/footfall-bin.js';
import { CLI_ENV } from '../cli/fixtures/cli-run.js';
import { startSmtpServer, TEST_CA_FILE } from '../http/helpers/smtp-test-server.js';

const missing = missingScaleEnv();
const skip = missing.length ? unavailable(`${missing.join(', ')} not set (scripts/services.sh start prints them)`) : false;
const SUBSCRIBERS = 30;

function send(env: Record<string, string>, now: string): Promise<{ sent: number; retrying: number; failed: number }> {
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [FOOTFALL_BIN, 'report', 'send', '--now', now, '--json'],
      { env: { ...CLI_ENV, ...env } },
      (err, stdout, stderr) => (err ? reject(new Error(`report send failed: ${stdout} ${stderr}`)) : resolve(JSON.parse(stdout.trim()))),
    ),
  );
}

test('two report senders at once on one PostgreSQL and ClickHouse: each report goes exactly once', { skip }, async () => {
  const db = await scratchDatabase(process.env.FOOTFALL_TEST_POSTGRES_URL!);
  const ch = scratchUrl('single');
  const smtp = await startSmtpServer();
  const cp = await openPostgresControlPlane(db.url);
  try {
    const ws = await cp.catalog.createWorkspace({ name: 'Agency', plan: 'pro' });
    const sites = await Promise.all(
      [0, 1, 2].map((i) =>
        cp.catalog.createSite({ workspaceId: ws.id, name: `Client ${i}`, hostnames: [`c${i}.example.com`], collectionProfile: 'extended' }),
      ),
    );
    for (let i = 0; i < SUBSCRIBERS; i++)
      await cp.reports.subscribe({
        siteId: sites[i % 3].id,
        workspaceId: ws.id,
        tenantId: null,
        email: `reader${i}@example.org`,
        period: 'week',
        userId: null,
        confirm: null,
        now: '2026-11-01T00:00:00.000Z',
      });
    const env = {
      FOOTFALL_CONTROL_URL: db.url,
      FOOTFALL_EVENTS_URL: ch.url,
      FOOTFALL_PUBLIC_URL: 'https://stats.example.com',
      FOOTFALL_SMTP_URL: smtp.url,
      FOOTFALL_MAIL_FROM: 'reports@example.com',
      FOOTFALL_SMTP_CA: TEST_CA_FILE,
    };
    // Monday 9 November 2026, 06:00 UTC: the week of 2-8 November is due on every (UTC) site
    const now = '2026-11-09T06:00:00Z';
    const runs = await Promise.all([send(env, now), send(env, now)]);
    assert.equal(runs[0].sent + runs[1].sent, SUBSCRIBERS, JSON.stringify(runs));
    assert.deepEqual(
      runs.map((r) => r.retrying + r.failed),
      [0, 0],
    );
    assert.equal(smtp.received.length, SUBSCRIBERS);
    assert.equal(new Set(smtp.received.map((m) => m.to[0])).size, SUBSCRIBERS, 'each subscriber once');
    assert.equal((await send(env, now)).sent, 0, 'a third run finds every report sent');
    assert.equal(smtp.received.length, SUBSCRIBERS);
  } finally {
    await cp.close();
    await smtp.close();
    await Promise.all([db.drop(), ch.drop()]);
  }
});
