// `footfall demo`: what it creates, and that its traffic is the same for the same seed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/config.js';
import { runDemo } from '../../src/cli/demo.js';
import { openEventStore } from '../../src/engines/duckdb/open-event-store.js';
import { openControlPlane } from '../../src/control/open-control-plane.js';
import { hashSecret } from '../../src/domain/tokens.js';
import { importDemoTraffic, seedDemoCatalog } from '../../src/ingest/demo/seed-demo.js';
import { DemoLoad } from '../../src/ingest/demo/load-demo.js';
import { reidentify } from '../../src/ingest/pipeline/import-lines.js';

const NOW = Date.parse('2025-06-18T15:30:00.000Z');

async function demo(days: number, seed = 3) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-demo-'));
  const result = await runDemo(loadConfig({ dataDir: dir }, {}), { seed, days, nowMs: NOW });
  const store = await openEventStore({ dataDir: dir });
  const c = await store.instance.connect();
  const q = async (sql: string) => (await c.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
  return {
    dir,
    result,
    q,
    close: async () => {
      c.closeSync();
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

test('the demo builds both plans, both profiles, a switched site, tenants, goals and tokens', async () => {
  const d = await demo(30);
  try {
    const { result } = d;
    assert.deepEqual(
      result.workspaces.map((w) => w.plan),
      ['pro', 'starter'],
    );
    const sites = result.workspaces.flatMap((w) => w.sites);
    assert.ok(sites.some((s) => s.profile === 'strict'));
    const switched = sites.find((s) => s.profile_effective_at !== null);
    assert.equal(switched?.profile_effective_at, '2025-05-28T00:00:00.000Z', 'three weeks before today');
    assert.ok(sites.some((s) => s.tenants.length >= 2));
    const control = await openControlPlane({ dataDir: d.dir });
    try {
      const goals = (await Promise.all(sites.map((s) => control.catalog.listGoals(s.site_id)))).flat();
      assert.deepEqual(new Set(goals.map((g) => g.type)), new Set(['PAGEVIEW_MATCH', 'EVENT_MATCH']));
      for (const t of result.tokens) assert.equal((await control.catalog.findTokenByHash(hashSecret(t.secret)))?.id, t.token_id);
      const switchedSite = await control.catalog.getSite(switched!.site_id);
      assert.equal(switchedSite?.collectionProfile, 'extended');
    } finally {
      await control.close();
    }
    assert.equal(result.import.rejected, 0, JSON.stringify(result.import.errors.slice(0, 3)));
    const families = (await d.q(`SELECT DISTINCT family FROM events WHERE family IS NOT NULL`)).map((r) => r.family);
    assert.deepEqual(new Set(families), new Set(['goals', 'forms', 'outbound', 'downloads', 'errors', 'custom', 'instrumentation']));
    const classes = (await d.q(`SELECT DISTINCT traffic_class FROM events`)).map((r) => r.traffic_class);
    assert.deepEqual(new Set(classes), new Set(['human', 'ai_agent', 'bot', 'ai_bot']));
    const channels = (await d.q(`SELECT DISTINCT channel FROM sessions`)).map((r) => r.channel);
    assert.deepEqual(new Set(channels), new Set(['Direct', 'Search', 'Referral', 'Social', 'Email', 'Paid', 'Other']));
    const stamped = await d.q(
      `SELECT profile, min(ts_ms) AS first FROM events WHERE site_id = '${switched!.site_id}' GROUP BY 1 ORDER BY 1`,
    );
    assert.deepEqual(
      stamped.map((r) => r.profile),
      ['extended', 'strict'],
    );
    assert.ok(Number(stamped[0].first) >= Date.parse(switched!.profile_effective_at!));
    const weekdays = await d.q(
      `SELECT isodow(day) < 6 AS weekday, count(*) / count(DISTINCT day) AS per_day FROM events GROUP BY 1 ORDER BY 1`,
    );
    assert.ok(Number(weekdays[1].per_day) > Number(weekdays[0].per_day), 'weekdays are busier than weekends');
    assert.equal((await d.q(`SELECT count(*) AS n FROM events WHERE ts_ms > ${NOW}`))[0].n, '0');
    await assert.rejects(runDemo(loadConfig({ dataDir: d.dir }, {}), { seed: 3, days: 30, nowMs: NOW }), /already loaded/);
  } finally {
    await d.close();
  }
});

test('the same seed gives the same traffic', async () => {
  const a = await demo(7, 42);
  const b = await demo(7, 42);
  try {
    // ids are random per run, so compare content that does not name them
    const sql = `SELECT ts_ms, type, path_canon, referrer_host, channel, country, device_type, traffic_class, action_name
      FROM events ORDER BY ALL`;
    assert.deepEqual(await a.q(sql), await b.q(sql));
  } finally {
    await a.close();
    await b.close();
  }
});

test('by default the demo holds at least 90 days and 100,000 events', async () => {
  const d = await demo(90, 1);
  try {
    const [row] = await d.q(`SELECT count(*) AS n, count(DISTINCT day) AS days FROM events`);
    assert.ok(Number(row.n) >= 100_000, `only ${row.n} events`);
    assert.equal(row.days, '90');
  } finally {
    await d.close();
  }
});

test('the demo loaded into a serving store, newest week first, equals the demo imported at once, says what is loading, and resumes', async () => {
  const dirs: string[] = [];
  const open = async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-demo-load-'));
    dirs.push(dir);
    const control = await openControlPlane({ dataDir: dir });
    const store = await openEventStore({ dataDir: dir });
    return { dir, control, store };
  };
  const snapshot = async (store: Awaited<ReturnType<typeof openEventStore>>) => {
    const c = await store.instance.connect();
    try {
      const out: string[] = [];
      for (const t of ['events', 'sessions', 'daily_rollups', 'daily_page_titles']) {
        out.push(
          JSON.stringify((await c.runAndReadAll(`SELECT * FROM ${t} ORDER BY ALL`)).getRowsJS(), (_k, v) =>
            typeof v === 'bigint' ? Number(v) : v,
          ),
        );
      }
      return out;
    } finally {
      c.closeSync();
    }
  };
  try {
    // at once
    const a = await open();
    const seededA = await seedDemoCatalog({ catalog: a.control.catalog, seed: 3, days: 12, nowMs: NOW });
    const once = await importDemoTraffic({
      catalog: a.control.catalog,
      sink: await a.store.beginImport({ reidentify }),
      traffic: seededA.traffic,
    });
    // in the background, in two parts; the traffic depends on the catalog's ids, so the same ids are used
    const b = await open();
    const load = new DemoLoad(seededA.traffic);
    const site = seededA.traffic.sites[0].id;
    assert.match(load.notes(site).join(' '), /still loading: nothing of it is readable yet/);
    assert.deepEqual(load.notes('site_other'), []);
    const done = await load.run(a.control.catalog, b.store);
    assert.equal(done.imported, once.imported);
    assert.deepEqual(load.notes(site), []);
    assert.deepEqual(await snapshot(b.store), await snapshot(a.store));
    // a load cut short resumes: the parts already stored are duplicates, the rest comes in
    const c = await open();
    const first = await importDemoTraffic({
      catalog: a.control.catalog,
      sink: await c.store.beginImport({ reidentify }),
      traffic: seededA.traffic,
      days: { fromDayMs: seededA.traffic.startDayMs + 9 * 86_400_000, toDayMs: Number.POSITIVE_INFINITY },
    });
    assert.ok(first.imported > 0 && first.imported < once.imported);
    assert.equal((await new DemoLoad(seededA.traffic).run(a.control.catalog, c.store)).imported, once.imported - first.imported);
    assert.deepEqual(await snapshot(c.store), await snapshot(a.store));
    for (const x of [a, b, c]) {
      await x.store.close();
      await x.control.close();
    }
  } finally {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  }
});

test('the demo has an owner of every demo workspace, with no password and a one-time sign-in link', async () => {
  const d = await demo(1);
  try {
    const owner = d.result.owner!;
    assert.equal(owner.email, 'owner@demo.footfall.test');
    const m = /^http:\/\/127\.0\.0\.1:8080\/app\/sign-in\/([0-9A-Za-z]{32})$/.exec(owner.sign_in_url ?? '');
    assert.ok(m, owner.sign_in_url);
    assert.ok(Date.parse(owner.expires_at!) > Date.now());
    const control = await openControlPlane({ dataDir: d.dir });
    try {
      assert.equal((await control.people.findUserByEmail(owner.email))?.passwordHash, null);
      const roles = await Promise.all(d.result.workspaces.map((w) => control.people.getRole(w.workspace_id, owner.user_id)));
      assert.deepEqual(
        roles,
        d.result.workspaces.map(() => 'owner'),
      );
      const now = new Date().toISOString();
      assert.equal((await control.people.redeemLink({ secretHash: hashSecret(m[1]), purpose: 'sign_in', now }))?.id, owner.user_id);
      assert.equal(await control.people.redeemLink({ secretHash: hashSecret(m[1]), purpose: 'sign_in', now }), null, 'used once');
    } finally {
      await control.close();
    }
  } finally {
    await d.close();
  }
});
