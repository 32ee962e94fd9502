// Live collection on the scale stack: two API processes, each with its own spool (its own data dir),
// load into one ClickHouse. A visitor whose events reach both processes is one visitor with one
// session, every accepted event is counted once, and both processes answer the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPostgresControlPlane } from '../../src/control/postgres/open.js';
import { missingScaleEnv, scratchDatabase } from '../http/helpers/stack.js';
import { scratchUrl } from '../engines/clickhouse-scratch.js';
import { get, seed } from './fixtures/seed.js';
import { serve, stopAll } from './fixtures/serve.js';
import { unavailable } from '../helpers/services.js';

const missing = missingScaleEnv();
const skip = missing.length ? unavailable(`${missing.join(', ')} not set (scripts/services.sh start prints them)`) : false;
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

test('two API processes spool their own events and load them into one ClickHouse: exact counts and sessions', {
  skip,
  timeout: 180_000,
}, async () => {
  const db = await scratchDatabase(process.env.FOOTFALL_TEST_POSTGRES_URL!);
  const cluster = process.env.FOOTFALL_TEST_CLICKHOUSE_SHARD2_URL && process.env.FOOTFALL_TEST_CLICKHOUSE_CLUSTER;
  const ch = scratchUrl(cluster ? 'cluster' : 'single');
  const cp = await openPostgresControlPlane(db.url);
  const procs: Awaited<ReturnType<typeof serve>>[] = [];
  try {
    const env = {
      FOOTFALL_CONTROL_URL: db.url,
      FOOTFALL_REDIS_URL: process.env.FOOTFALL_TEST_REDIS_URL!,
      FOOTFALL_EVENTS_URL: ch.url,
      // the load balancer in front is the trusted proxy; it says who the visitor is
      FOOTFALL_TRUST_PROXY: 'loopback',
      FOOTFALL_GEOIP_DB: 'off',
    };
    procs.push(...(await Promise.all([serve(env), serve(env)])));
    const [a, b] = procs.map((p) => p.base);
    const site = await seed(cp.catalog, null, { plan: 'enterprise', apiPolicy: { rate_limit_rps: null } });
    const domain = (await cp.catalog.getSite(site.siteId))!.hostnames[0];

    // 20 visitors, 10 pageviews each, every other one through the other process, all at once.
    const sends = Array.from({ length: 200 }, (_, i) => {
      const visitor = i % 20;
      return fetch(`${i % 2 ? a : b}/api/event`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', 'user-agent': UA, 'x-forwarded-for': `198.51.100.${visitor}` },
        body: JSON.stringify({ n: 'pageview', u: `https://${domain}/p${Math.floor(i / 20)}`, d: domain, r: null }),
      }).then((r) => r.status);
    });
    const statuses = await Promise.all(sends);
    assert.deepEqual([...new Set(statuses)], [202]);

    const today = new Date().toISOString().slice(0, 10);
    const overview = async (base: string) =>
      (await get(base, `/v1/reports/overview?site_id=${site.siteId}&from=${today}&to=${today}`, site.secret)).body.current.overview.totals;
    let totals = await overview(a);
    for (let i = 0; i < 150 && totals.pageviews < 200; i++) {
      await new Promise((r) => setTimeout(r, 200));
      totals = await overview(a);
    }
    assert.deepEqual([totals.pageviews, totals.visitors, totals.sessions, totals.bounce_rate], [200, 20, 20, 0]);
    assert.deepEqual(await overview(b), totals, 'both processes read the same');
    const freshness = (await get(b, `/v1/metrics/timeseries?site_id=${site.siteId}&from=${today}&to=${today}`, site.secret)).body.meta
      .surface.dataFreshness;
    assert.deepEqual([freshness.status, freshness.lagMinutes], ['fresh', 0]);
  } finally {
    await stopAll(procs);
    for (const p of procs) assert.doesNotMatch(p.stderr(), /"level":(50|60)/, 'no error was logged');
    await cp.close();
    await Promise.all([db.drop(), ch.drop()]);
  }
});
