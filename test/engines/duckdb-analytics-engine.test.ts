import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DuckDbAnalyticsEngine } from '../../src/engines/duckdb/duckdb-analytics-engine.js';
import type { QuerySpec } from '../../src/domain/query/query-spec.js';
import { DIMENSIONS } from '../../src/domain/query/dimensions.js';
import { METRICS } from '../../src/domain/query/metrics.js';
import type { MetricRow } from '../../src/domain/query/assemble.js';
import { BASE_MS, DAY, SITE, dataset, eventDrawArb, load, openTestDb, type SiteProfile } from './analytics-fixtures.js';
import { referenceQuery, type RefRow } from './reference-metrics.js';
import { runs } from '../helpers/property-runs.js';

const HOUR = 3_600_000;

function engineFor(db: { conn: any }) {
  return new DuckDbAnalyticsEngine({ connect: async () => db.conn });
}

/** Series are compared densely: a bucket absent on one side equals zeros. */
function normalizeRows(spec: QuerySpec, rows: readonly (MetricRow | RefRow)[]) {
  const plain = rows.map((r) => ({
    bucketMs: r.bucketMs,
    key: r.key,
    ...(spec.splitBy ? { split: r.split } : {}),
    values: Object.fromEntries(spec.metrics.map((m) => [m, r.values[m]])),
  }));
  if (!spec.interval || spec.dimension) return plain;
  const byBucket = new Map(plain.map((r) => [r.bucketMs, r]));
  const size = spec.interval === 'day' ? DAY : HOUR;
  const out = [];
  for (let b = Math.floor(spec.startMs / size) * size; b <= spec.endMs; b += size) {
    out.push(byBucket.get(b) ?? { bucketMs: b, key: null, values: Object.fromEntries(spec.metrics.map((m) => [m, 0])) });
  }
  return out;
}

const filterArb = fc.dictionary(
  fc.constantFrom('page', 'country', 'channel', 'referrer', 'tenant', 'entry_page', 'device', 'medium', 'city'),
  fc.constantFrom<string | null>('/', '/a', '/café', 'DE', 'FR', 'Direct', 'Search', 'google.com', 't1', 'desktop', 'email', 'Paris', null),
  { maxKeys: 2 },
);

const specArb: fc.Arbitrary<QuerySpec> = fc
  .record({
    tenantIds: fc.constantFrom(null, ['t1'], ['t1', 't2'], []),
    startDay: fc.integer({ min: 0, max: 2 }),
    days: fc.integer({ min: 1, max: 3 }),
    startOffset: fc.constantFrom(0, 0, 13 * HOUR + 17 * 60_000),
    traffic: fc.constantFrom(['human'], ['human', 'ai_agent'], ['bot', 'ai_bot'], ['ai_bot'], ['human', 'ai_agent', 'bot', 'ai_bot']),
    filters: filterArb,
    metrics: fc.shuffledSubarray([...METRICS], { minLength: 1, maxLength: 4 }),
    shape: fc.constantFrom('total', 'series', 'breakdown', 'breakdown', 'trend'),
    interval: fc.constantFrom('day', 'hour'),
    dimension: fc.constantFrom(...DIMENSIONS),
    limit: fc.option(fc.integer({ min: 1, max: 5 })),
    // a second grouping: the stored pairs (entry_page or referrer by channel, region or city by country) and others
    splitBy: fc.option(fc.constantFrom('channel', 'country', 'entry_page', 'device'), { freq: 3 }),
    keyIn: fc.option(fc.subarray(['/', '/a', '/café', 'DE', 'Direct', 't1', null] as (string | null)[])),
  })
  .map((r) => {
    const startMs = BASE_MS + r.startDay * DAY + r.startOffset;
    const spec: QuerySpec = {
      siteId: SITE,
      tenantIds: r.tenantIds,
      startMs,
      endMs: BASE_MS + (r.startDay + r.days) * DAY - 1,
      trafficClasses: r.traffic as any,
      filters: r.filters as any,
      metrics: r.metrics,
    };
    if (r.shape === 'series' || r.shape === 'trend') spec.interval = r.interval as 'day' | 'hour';
    if (r.shape === 'breakdown' || r.shape === 'trend') {
      spec.dimension = r.dimension;
      if (r.keyIn !== null) spec.keyIn = r.keyIn;
    }
    if (r.shape === 'breakdown' && r.splitBy !== null && r.splitBy !== r.dimension) spec.splitBy = r.splitBy as QuerySpec['splitBy'];
    if (r.shape === 'breakdown' && r.limit !== null) spec.limit = r.limit;
    return spec;
  });

const profileArb: fc.Arbitrary<SiteProfile> = fc.oneof(
  fc.constant<SiteProfile>({ profile: 'extended', effectiveAtMs: null }),
  fc.constant<SiteProfile>({ profile: 'strict', effectiveAtMs: null }),
  fc.constant<SiteProfile>({ profile: 'extended', effectiveAtMs: BASE_MS + DAY + 12 * HOUR + 5 }),
  fc.constant<SiteProfile>({ profile: 'strict', effectiveAtMs: BASE_MS + DAY }),
);

test('every metric, dimension, filter and interval matches the independent reference on random data', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventDrawArb([SITE, 'site_b']), { minLength: 0, maxLength: 150, size: 'max' }),
      profileArb,
      fc.array(specArb, { minLength: 1, maxLength: 6 }),
      async (draws, profile, specs) => {
        const data = dataset(draws, { [SITE]: profile, site_b: { profile: 'extended', effectiveAtMs: null } });
        const db = await openTestDb();
        try {
          await load(db, data);
          const engine = engineFor(db);
          for (const spec of specs) {
            const got = await engine.run(spec, { timeoutMs: 10_000 });
            const want = referenceQuery(spec, data.events, data.sessions);
            assert.deepEqual(normalizeRows(spec, got), normalizeRows(spec, want), JSON.stringify(spec));
          }
        } finally {
          db.close();
        }
      },
    ),
    { numRuns: runs(200) },
  );
});
