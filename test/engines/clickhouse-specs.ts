// Random query specs over the analytics fixtures' three days (the same shapes the DuckDB engine test draws).
import fc from 'fast-check';
import type { QuerySpec } from '../../src/domain/query/query-spec.js';
import { DIMENSIONS } from '../../src/domain/query/dimensions.js';
import { METRICS } from '../../src/domain/query/metrics.js';
import { BASE_MS, DAY, SITE } from './analytics-fixtures.js';

const HOUR = 3_600_000;

export const specArb: fc.Arbitrary<QuerySpec> = fc
  .record({
    tenantIds: fc.constantFrom(null, ['t1'], ['t1', 't2'], []),
    startDay: fc.integer({ min: 0, max: 2 }),
    days: fc.integer({ min: 1, max: 3 }),
    startOffset: fc.constantFrom(0, 0, 13 * HOUR + 17 * 60_000),
    traffic: fc.constantFrom(['human'], ['human', 'ai_agent'], ['bot', 'ai_bot'], ['human', 'ai_agent', 'bot', 'ai_bot']),
    filters: fc.dictionary(
      fc.constantFrom('page', 'country', 'channel', 'referrer', 'tenant', 'entry_page', 'device', 'medium', 'city'),
      fc.constantFrom<string | null>(
        '/',
        '/a',
        '/café',
        'DE',
        'FR',
        'Direct',
        'Search',
        'google.com',
        't1',
        'desktop',
        'email',
        'Paris',
        null,
      ),
      { maxKeys: 2 },
    ),
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
    const spec: QuerySpec = {
      siteId: SITE,
      tenantIds: r.tenantIds,
      startMs: BASE_MS + r.startDay * DAY + r.startOffset,
      endMs: BASE_MS + (r.startDay + r.days) * DAY - 1,
      trafficClasses: r.traffic as QuerySpec['trafficClasses'],
      filters: r.filters,
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
