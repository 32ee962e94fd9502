// Two `footfall serve` processes on ONE data dir (two cores, as pm2 or a cluster runs them) against
// PostgreSQL, Redis and ClickHouse: each collects into a spool of its own; one is killed with kill -9
// while events arrive and its loader has events waiting, and the other loads the spool it left.
// Every event answered 202 is readable exactly once (engagement, which is added rather than stored,
// shows any record loaded twice). Where one process owns the data dir (SQLite
// control plane, DuckDB events), a second one is refused with a message saying what to do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openPostgresControlPlane } from '../../src/control/postgres/open.js';
import { openClickHouse } from '../../src/engines/clickhouse/open-clickhouse.js';
import { missingScaleEnv, scratchDatabase } from '../http/helpers/stack.js';
import { scratchUrl } from '../engines/clickhouse-scratch.js';
import { get, seed } from './fixtures/seed.js';
import { serve, stopAll, type Served } from './fixtures/serve.js';
import { needs, unavailable } from '../helpers/services.js';

const missing = missingScaleEnv();
const skip = missing.length ? unavailable(`${missing.join(', ')} not set (scripts/services.sh start prints them)`) : false;
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
/** pages in all: one content report (limit 2000) lists every one */
const PAGES = 1500;

const spoolsOf = (dataDir: string) =>
  fs
    .readdirSync(path.join(dataDir, 'spool'), { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => e.name);

async function until(what: string, ok: () => Promise<boolean> | boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`${what} did not happen within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('two processes share a data dir; one killed with kill -9 mid-load, the other loads its spool: every 202 readable exactly once', {
  skip,
  timeout: 240_000,
}, async () => {
  const db = await scratchDatabase(process.env.FOOTFALL_TEST_POSTGRES_URL!);
  const ch = scratchUrl('single');
  const cp = await openPostgresControlPlane(db.url);
  const events = await openClickHouse(ch.url);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-shared-'));
  const procs: Served[] = [];
  try {
    const env = {
      FOOTFALL_CONTROL_URL: db.url,
      FOOTFALL_REDIS_URL: process.env.FOOTFALL_TEST_REDIS_URL!,
      FOOTFALL_EVENTS_URL: ch.url,
      FOOTFALL_TRUST_PROXY: 'loopback',
      FOOTFALL_GEOIP_DB: 'off',
      FOOTFALL_COLLECT_RATE_LIMIT: '0',
    };
    procs.push(...(await Promise.all([serve(env, { dataDir }), serve(env, { dataDir })])));
    const [survivor, victim] = procs;
    assert.equal(spoolsOf(dataDir).length, 2, 'a spool each');
    // Each process collects a site of its own here: two loaders committing the same site's day keep
    // failing each other's commit ("another import committed"), which would only slow this test.
    const sites = await Promise.all([0, 1].map(() => seed(cp.catalog, null, { plan: 'enterprise', apiPolicy: { rate_limit_rps: null } })));
    const domains = await Promise.all(sites.map(async (s) => (await cp.catalog.getSite(s.siteId))!.hostnames[0]));

    // Eight senders, every page once (a pageview, then its engagement to the same process), every
    // other one to the victim until it is killed with kill -9 while they send. Engagement is added,
    // not stored, so a record loaded twice shows as twice the engagement.
    type Sent = { site: number; path: string; viewed: number; engaged: 'no' | 'sent' | 'acked'; ms: number };
    const sent: Sent[] = [];
    let n = 0;
    let killed = false;
    const post = (base: string, page: Sent, body: Record<string, unknown>) =>
      fetch(`${base}/api/event`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', 'user-agent': UA, 'x-forwarded-for': `198.51.100.${page.ms % 50}` },
        body: JSON.stringify({ u: `https://${domains[page.site]}${page.path}`, d: domains[page.site], ...body }),
      }).then(
        (res) => res.status,
        () => 0,
      );
    const sender = async () => {
      while (n < PAGES) {
        const i = n++;
        const site = i % 2 && !killed ? 1 : 0;
        const to = site ? victim : survivor;
        const page: Sent = { site, path: `/p${i}`, viewed: 0, engaged: 'no', ms: 1000 + i };
        sent.push(page);
        page.viewed = await post(to.base, page, { n: 'pageview', r: null });
        if (page.viewed === 202) {
          page.engaged = 'sent';
          if ((await post(to.base, page, { n: 'engagement', e: page.ms })) === 202) page.engaged = 'acked';
        }
        // Past the first quarter and until the kill, slower: the victim must be killed while events still
        // arrive, after its loader's first commit, however fast the processes accept them.
        await new Promise((r) => setTimeout(r, n >= PAGES / 4 && !killed ? 60 : 10));
      }
    };
    const senders = Array.from({ length: 8 }, sender);
    // Killed once its loader has committed (so loading its spool starts midway) and while events arrive.
    const victimSpool = path.join(
      dataDir,
      'spool',
      spoolsOf(dataDir).find(
        (id) => fs.readFileSync(path.join(dataDir, 'spool', id, 'SPOOL.lock.pid'), 'utf8').trim() === String(victim.child.pid),
      )!,
    );
    await until(
      'the victim has loaded some of its events',
      async () => n >= PAGES / 4 && (await events.store.checkpoint(path.basename(victimSpool))) !== null,
    );
    assert.ok(n < PAGES * 0.8, `the victim is killed while events still arrive (${n} of ${PAGES} sent)`);
    victim.child.kill('SIGKILL');
    killed = true;
    await Promise.all(senders);
    await new Promise<void>((r) =>
      victim.child.exitCode !== null || victim.child.signalCode !== null ? r() : victim.child.once('exit', () => r()),
    );

    const acked = sent.filter((s) => s.viewed === 202);
    assert.deepEqual(
      [...new Set(sent.map((s) => s.viewed))].sort(),
      sent.some((s) => s.viewed === 0) ? [0, 202] : [202],
      'only 202 or a dead connection',
    );
    assert.ok(acked.filter((s) => s.site === 1).length > 50, 'the victim acknowledged events');

    // The survivor finds the spool nobody holds, loads it and removes it.
    await until("the dead process's spool loaded and removed", () => !fs.existsSync(victimSpool));
    const today = new Date().toISOString().slice(0, 10);
    type Row = { path_canon: string; pageviews: number; avg_page_eng_time_ms: number };
    const pages = async (site: number) => {
      const content = await get(
        survivor.base,
        `/v1/reports/content?site_id=${sites[site].siteId}&from=${today}&to=${today}&include=full&limit=2000`,
        sites[site].secret,
      );
      assert.equal(content.status, 200, JSON.stringify(content.body));
      return new Map<string, Row>(content.body.current.pages.map((p: Row) => [p.path_canon, p]));
    };
    const wrong = (site: number, rows: Map<string, Row>) => {
      const mine = new Map(sent.filter((s) => s.site === site).map((s) => [s.path, s]));
      return {
        lost: [...mine.values()].filter((s) => s.viewed === 202 && rows.get(s.path)?.pageviews !== 1).map((s) => s.path),
        twice: [...rows.values()].filter((r) => r.pageviews !== 1).map((r) => r.path_canon),
        stray: [...rows.keys()].filter((p) => !mine.has(p)),
        // acknowledged engagement counted once; one whose answer was lost at most once; none twice
        engagement: [...rows.values()]
          .filter((r) => {
            const s = mine.get(r.path_canon);
            const eng = r.avg_page_eng_time_ms;
            return s && !(s.engaged === 'acked' ? eng === s.ms : s.engaged === 'sent' ? eng === 0 || eng === s.ms : eng === 0);
          })
          .map((r) => r.path_canon),
      };
    };
    for (const site of [0, 1]) {
      let rows = await pages(site);
      const clean = (w: ReturnType<typeof wrong>) => w.lost.length + w.engagement.length === 0;
      await until(
        `every acknowledged event of site ${site} readable`,
        async () => clean(wrong(site, (rows = await pages(site)))),
        30_000,
      ).catch(() => undefined);
      assert.deepEqual(wrong(site, rows), { lost: [], twice: [], stray: [], engagement: [] }, `site ${site}`);
      // Counts through /v1: every acknowledged pageview, and each one the victim spooled without answering (its connection died) at most once.
      const total = (
        await get(survivor.base, `/v1/metrics/timeseries?site_id=${sites[site].siteId}&from=${today}&to=${today}`, sites[site].secret)
      ).body.current.total;
      const ofSite = sent.filter((s) => s.site === site);
      assert.equal(
        total,
        ofSite.filter((s) => s.viewed === 202).length + ofSite.filter((s) => s.viewed === 0 && rows.has(s.path)).length,
        `site ${site}`,
      );
    }
    assert.match(survivor.log(), /"records":[1-9]/, 'the survivor loaded records the victim had not loaded');
  } finally {
    await stopAll(procs);
    for (const p of procs) assert.doesNotMatch(p.stderr() + p.log(), /"level":(50|60)/, 'no error was logged');
    await events.close();
    await cp.close();
    await Promise.all([db.drop(), ch.drop()]);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('with a SQLite control plane one process serves a data dir: a second one is refused, told what to do', {
  skip: needs('FOOTFALL_TEST_CLICKHOUSE_URL'),
  timeout: 120_000,
}, async () => {
  const ch = scratchUrl('single');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-owned-'));
  const procs: Served[] = [];
  try {
    const env = { FOOTFALL_EVENTS_URL: ch.url, FOOTFALL_GEOIP_DB: 'off' };
    procs.push(await serve(env, { dataDir }));
    await assert.rejects(serve(env, { dataDir }), (err: Error) => {
      assert.match(err.message, new RegExp(`served by another footfall serve \\(process ${procs[0].child.pid}\\)`));
      assert.match(err.message, /its own --data-dir/);
      assert.match(err.message, /FOOTFALL_CONTROL_URL/);
      return true;
    });
  } finally {
    await stopAll(procs);
    await ch.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test("the embedded stores are one process's: a second serve on the data dir is refused, told what to do", {
  timeout: 120_000,
}, async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-owned-'));
  const procs: Served[] = [];
  try {
    const env = { FOOTFALL_GEOIP_DB: 'off' };
    procs.push(await serve(env, { dataDir }));
    await assert.rejects(serve(env, { dataDir }), (err: Error) => {
      assert.match(err.message, /in use by another process/);
      assert.match(err.message, /its own --data-dir/);
      assert.match(err.message, /FOOTFALL_EVENTS_URL/);
      return true;
    });
  } finally {
    await stopAll(procs);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
