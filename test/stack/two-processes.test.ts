// Two API processes (`footfall serve`, real sockets) against the same PostgreSQL, Redis and ClickHouse:
// requests spread over both meet ONE rate limit and ONE hard cap, exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPostgresControlPlane } from '../../src/control/postgres/open.js';
import { openClickHouse } from '../../src/engines/clickhouse/open-clickhouse.js';
import { missingScaleEnv, scratchDatabase } from '../http/helpers/stack.js';
import { scratchUrl } from '../engines/clickhouse-scratch.js';
import { get, seed, timeseriesPath } from './fixtures/seed.js';
import { serve, stopAll } from './fixtures/serve.js';
import { unavailable } from '../helpers/services.js';

const missing = missingScaleEnv();
const skip = missing.length ? unavailable(`${missing.join(', ')} not set (scripts/services.sh start prints them)`) : false;

test('two API processes on one PostgreSQL, Redis and ClickHouse enforce one rate limit and one hard cap', { skip }, async () => {
  const db = await scratchDatabase(process.env.FOOTFALL_TEST_POSTGRES_URL!);
  const ch = scratchUrl('single');
  const cp = await openPostgresControlPlane(db.url);
  const events = await openClickHouse(ch.url);
  const procs: Awaited<ReturnType<typeof serve>>[] = [];
  try {
    const env = { FOOTFALL_CONTROL_URL: db.url, FOOTFALL_REDIS_URL: process.env.FOOTFALL_TEST_REDIS_URL!, FOOTFALL_EVENTS_URL: ch.url };
    procs.push(...(await Promise.all([serve(env), serve(env)])));
    const [a, b] = procs.map((p) => p.base);

    // One rate limit: L = 60 per token per 60 s, 90 requests at once spread over both processes.
    const limited = await seed(cp.catalog, null, { plan: 'enterprise', apiPolicy: { rate_limit_rps: 1 } });
    const rl = await Promise.all(Array.from({ length: 90 }, (_, i) => get(i % 2 ? a : b, '/v1/me', limited.secret)));
    const count = (rs: { status: number }[], s: number) => rs.filter((r) => r.status === s).length;
    assert.equal(count(rl, 200), 60, JSON.stringify(rl.map((r) => r.status)));
    assert.equal(count(rl, 429), 30);
    assert.equal(Math.min(...rl.filter((r) => r.status === 200).map((r) => Number(r.headers.get('x-ratelimit-remaining')))), 0);

    // One hard cap: the cost of one request, then a cap of five of them and twenty requests at once.
    const probe = await seed(cp.catalog, events.store);
    assert.equal((await get(a, timeseriesPath(probe), probe.secret)).status, 200);
    const cost = (await get(a, '/v1/usage/current', probe.secret)).body.units_used as number;
    assert.ok(cost > 0);
    const capped = await seed(cp.catalog, events.store, {
      plan: 'enterprise',
      apiPolicy: { rate_limit_rps: null, monthly_included_units: cost, hard_cap_units: 5 * cost },
    });
    const hc = await Promise.all(Array.from({ length: 20 }, (_, i) => get(i % 2 ? a : b, timeseriesPath(capped), capped.secret)));
    assert.equal(count(hc, 200), 5, JSON.stringify(hc.map((r) => r.status)));
    assert.equal(count(hc, 402), 15);
    for (const r of hc.filter((x) => x.status === 402)) assert.equal(r.body.error.code, 'HARD_CAP_REACHED');
    // both processes read the same ledger
    for (const base of [a, b]) assert.equal((await get(base, '/v1/usage/current', capped.secret)).body.units_used, 5 * cost);
    // the answers of both processes agree
    const [ra, rb] = await Promise.all([a, b].map((base) => get(base, timeseriesPath(probe), probe.secret)));
    assert.deepEqual(ra.body.current, rb.body.current);
    assert.equal(ra.body.current.total, 36);
  } finally {
    await stopAll(procs);
    await events.close();
    await cp.close();
    await Promise.all([db.drop(), ch.drop()]);
  }
});
