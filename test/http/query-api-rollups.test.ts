// The query API reads the daily rollups where they answer exactly (src/services/query-api/rollup-reads.ts):
// every such shape must answer what the raw read of the events answers, and the rollup path must be the
// one taken (else the comparison proves nothing).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { metricsHarness, type MetricsHarness } from './metrics-harness.js';
import { generate, type Line } from './metrics-fixtures.js';

let h: MetricsHarness;
let site: string;
const calls = { run: 0, queryRows: 0 };

before(async () => {
  h = await metricsHarness({ now: '2025-06-20T12:00:00Z' });
  site = await h.site();
  const lines: Line[] = generate({ site, firstDay: '2025-04-01', lastDay: '2025-06-14', seed: 23 });
  await h.importEvents(lines as unknown as Record<string, unknown>[]);
  const engine = h.container.analytics!.engine;
  const run = engine.run.bind(engine);
  const queryRows = engine.queryRows.bind(engine);
  engine.run = (spec, o) => {
    calls.run++;
    return run(spec, o);
  };
  engine.queryRows = (r, o) => {
    calls.queryRows++;
    return queryRows(r, o);
  };
});
after(() => h.close());

async function answer(body: Record<string, unknown>, rollups: boolean) {
  h.container.analytics!.queryRollups = rollups;
  const r = await h.post('/api/v2/query', body, { token: h.secret });
  assert.equal(r.statusCode, 200, r.body);
  return r.json().results;
}

const DIMENSIONS = [
  [],
  ['event:page'],
  ['visit:country'],
  ['visit:channel'],
  ['visit:referrer'],
  ['visit:entry_page'],
  ['visit:exit_page'],
  ['visit:utm_source'],
  ['visit:browser'],
  ['visit:tenant'],
];
const TIMES = [[], ['time:day'], ['time:week'], ['time:month']];
const FILTERS = [[], [['is', 'event:page', ['/pricing']]], [['is', 'visit:country', ['(none)']]], [['is', 'visit:country', ['DE']]]];
const METRICS = [['visitors'], ['visits', 'bounce_rate', 'visit_duration'], ['pageviews', 'events', 'visitors', 'percentage']];

test('every shape the rollups answer gives the raw read answer, through the rollups', async () => {
  let shapes = 0;
  for (const [i, dims] of DIMENSIONS.entries()) {
    for (const [j, time] of TIMES.entries()) {
      // each dimension meets each time unit, filter set and metric set at least once, without the full product
      const filters = FILTERS[(i + j) % FILTERS.length];
      const metrics = METRICS[(i + 2 * j) % METRICS.length];
      if (metrics.includes('percentage') && dims.length === 0) continue;
      const body = { site_id: site, date_range: ['2025-04-10', '2025-06-14'], metrics, dimensions: [...time, ...dims], filters };
      const raw = await answer(body, false);
      const before = { ...calls };
      const fromRollups = await answer(body, true);
      assert.ok(calls.run > before.run && calls.queryRows === before.queryRows, `${JSON.stringify(body)}: read through the rollups`);
      assert.deepEqual(fromRollups, raw, JSON.stringify(body));
      assert.ok(raw.length > 0, `${JSON.stringify(body)}: the fixture has rows`);
      shapes++;
    }
  }
  assert.ok(shapes >= 35, `${shapes} shapes compared`);
});

test('what the rollups cannot answer reads the events: a zone off UTC, hours, two dimensions, other operators, views per visit', async () => {
  const kathmandu = await h.site({ timezone: 'Asia/Kathmandu' });
  for (const body of [
    { site_id: kathmandu, date_range: ['2025-04-10', '2025-06-14'], metrics: ['visitors'], dimensions: ['time:day'] },
    { site_id: site, date_range: ['2025-06-01', '2025-06-01'], metrics: ['visitors'], dimensions: ['time:hour'] },
    { site_id: site, date_range: ['2025-04-10', '2025-06-14'], metrics: ['visitors'], dimensions: ['event:page', 'visit:country'] },
    { site_id: site, date_range: ['2025-04-10', '2025-06-14'], metrics: ['visitors'], filters: [['contains', 'event:page', ['pri']]] },
    { site_id: site, date_range: ['2025-04-10', '2025-06-14'], metrics: ['views_per_visit'] },
    { site_id: site, date_range: ['2025-04-10', '2025-06-14'], metrics: ['visitors'], dimensions: ['event:name'] },
  ]) {
    const before = { ...calls };
    await answer(body, true);
    assert.ok(calls.queryRows > before.queryRows && calls.run === before.run, `${JSON.stringify(body)}: read from the events`);
  }
});
