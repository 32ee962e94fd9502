import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ApiError } from '../../../src/domain/errors.js';
import { normalizeSpec, parseFilterParam, dimensionsUsed, totalSpec, type QuerySpec } from '../../../src/domain/query/query-spec.js';
import { assembleRows, compareKeys, denseSeries, seriesBuckets, zeroAtoms, type AtomRow } from '../../../src/domain/query/assemble.js';
import { metricValue, atomsFor, METRICS } from '../../../src/domain/query/metrics.js';
import { compileQuery } from '../../../src/engines/sql/read/compile-query.js';
import { duckdbDialect } from '../../../src/engines/sql/dialect.js';

const spec: QuerySpec = {
  siteId: 's',
  tenantIds: null,
  startMs: 0,
  endMs: 86_400_000 * 2 - 1,
  trafficClasses: ['human'],
  filters: {},
  metrics: ['pageviews'],
};

test('normalize refuses specs the compiler cannot honour', () => {
  const bad: Partial<QuerySpec>[] = [
    { siteId: '' },
    { startMs: 10, endMs: 5 },
    { startMs: 0.5 },
    { metrics: [] },
    { metrics: ['pageviews', 'pageviews'] },
    { metrics: ['nope' as any] },
    { trafficClasses: [] },
    { trafficClasses: ['robot' as any] },
    { orderBy: 'sessions' },
    { dimension: 'planet' as any },
    { limit: 5 },
    { dimension: 'page', interval: 'day', limit: 5 },
    { dimension: 'page', limit: 0 },
    { keyIn: ['/a'] },
    { filters: { planet: 'x' } as any },
  ];
  for (const b of bad) assert.throws(() => normalizeSpec({ ...spec, ...b }), RangeError, JSON.stringify(b));
});

test('equal queries normalize to one form and compile to one SQL', () => {
  const a = normalizeSpec({
    ...spec,
    tenantIds: ['b', 'a', 'b'],
    trafficClasses: ['bot', 'human'],
    filters: { page: '/x', country: 'DE' },
  });
  const b = normalizeSpec({ ...spec, tenantIds: ['a', 'b'], trafficClasses: ['human', 'bot'], filters: { country: 'DE', page: '/x' } });
  assert.deepEqual(a, b);
  assert.equal(compileQuery(a, duckdbDialect).sql, compileQuery(b, duckdbDialect).sql);
  assert.equal(a.orderBy, 'pageviews');
});

test('DuckDB SQL carries no request value: every one is a bound parameter', () => {
  const s = normalizeSpec({
    ...spec,
    siteId: 'site-XYZ',
    filters: { page: '/secret-page', tenant: 'tenant-Q' },
    dimension: 'country',
    limit: 7,
    metrics: ['sessions', 'visitors'],
  });
  const c = compileQuery(s, duckdbDialect);
  for (const v of ['site-XYZ', '/secret-page', 'tenant-Q', 'human', 'pageview']) {
    assert.ok(!c.sql.includes(v), v);
    assert.ok(
      c.params.some((p) => p.value === v),
      v,
    );
  }
  assert.match(c.sql, /LIMIT \$\d+$/);
  const placeholders = new Set([...c.sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
  assert.deepEqual(
    [...placeholders].sort((x, y) => x - y),
    c.params.map((_, i) => i + 1),
  );
});

test('filter parameter: a JSON object of known dimensions to strings, or 422 naming it', () => {
  assert.deepEqual(parseFilterParam('{"page":"/a","country":"DE"}'), { page: '/a', country: 'DE' });
  assert.deepEqual(parseFilterParam('{}'), {});
  for (const raw of ['', 'x', '[]', 'null', '"page"', '{"page":1}', '{"page":null}', '{"planet":"x"}', `{"page":"${'a'.repeat(2049)}"}`]) {
    assert.throws(
      () => parseFilterParam(raw),
      (e: unknown) => e instanceof ApiError && e.code === 'INVALID_PARAMS' && e.details?.parameter === 'filters',
      raw,
    );
  }
});

test('dimensionsUsed lists grouping and filters; totalSpec drops the series grouping only', () => {
  assert.deepEqual(dimensionsUsed({ dimension: 'page', filters: { city: 'x' } }).sort(), ['city', 'page']);
  const t = totalSpec({ ...spec, interval: 'hour' as const, filters: { page: '/a' } });
  assert.equal(t.interval, undefined);
  assert.deepEqual(t.filters, { page: '/a' });
});

test('compareKeys orders by code point, not UTF-16 unit, with null last', () => {
  fc.assert(
    fc.property(fc.option(fc.string({ unit: 'grapheme' })), fc.option(fc.string({ unit: 'grapheme' })), (a, b) => {
      const want = a === b ? 0 : a === null ? 1 : b === null ? -1 : Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b)));
      assert.equal(Math.sign(compareKeys(a, b)), want);
    }),
  );
  assert.ok(compareKeys('\uFFFD', '😀') < 0);
  assert.ok('\uFFFD' > '😀'); // the UTF-16 order a naive sort would use
});

test('rates come from integer sums and are 0 without a denominator', () => {
  const atoms = { ...zeroAtoms(), sessions: 3, bounces: 1, engaged: 2, session_eng_ms: 10, pageviews: 7, pv_eng_ms: 5 };
  assert.equal(metricValue('bounce_rate', atoms), 1 / 3);
  assert.equal(metricValue('engagement_rate', atoms), 2 / 3);
  assert.equal(metricValue('avg_session_eng_time_ms', atoms), 10 / 3);
  assert.equal(metricValue('avg_page_eng_time_ms', atoms), 5 / 7);
  assert.equal(metricValue('avg_pages_per_session', atoms), 7 / 3);
  for (const m of METRICS) assert.equal(metricValue(m, zeroAtoms()), 0);
  assert.deepEqual(atomsFor(['bounce_rate', 'pageviews']), ['pageviews', 'sessions', 'bounces']);
});

test('breakdown assembly: no-data rows out, value desc, key by code point, null last, limit', () => {
  const row = (key: string | null, pageviews: number): AtomRow => ({ bucketMs: null, key, atoms: { ...zeroAtoms(), pageviews } });
  const s = normalizeSpec({ ...spec, dimension: 'page', limit: 4 });
  const out = assembleRows(s, [row('/b', 2), row(null, 2), row('/z', 0), row('😀', 2), row('\uFFFD', 2), row('/a', 5)]);
  assert.deepEqual(
    out.map((r) => [r.key, r.values.pageviews]),
    [
      ['/a', 5],
      ['/b', 2],
      ['\uFFFD', 2],
      ['😀', 2],
    ],
  );
});

test('a plain total is exactly one row even without data; series densify over the display window', () => {
  const s = normalizeSpec(spec);
  assert.deepEqual(
    assembleRows(s, []).map((r) => r.values),
    [{ pageviews: 0 }],
  );
  const series = normalizeSpec({ ...spec, interval: 'day' });
  const rows = assembleRows(series, [{ bucketMs: 86_400_000, key: null, atoms: { ...zeroAtoms(), pageviews: 3 } }]);
  const dense = denseSeries(rows, { startMs: 0, endMs: 3 * 86_400_000 - 1, interval: 'day', metrics: ['pageviews'] });
  assert.deepEqual(
    dense.map((r) => [r.bucketMs, r.values.pageviews]),
    [
      [0, 0],
      [86_400_000, 3],
      [172_800_000, 0],
    ],
  );
  assert.equal(seriesBuckets(0, 86_400_000 - 1, 'hour').length, 24);
  assert.equal(seriesBuckets(5_000, 3_600_000, 'hour').length, 2);
});
