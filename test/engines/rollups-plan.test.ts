import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TRAFFIC_FILTERS } from '../../src/domain/events.js';
import { DIMENSIONS } from '../../src/domain/query/dimensions.js';
import { normalizeSpec, type QuerySpec } from '../../src/domain/query/query-spec.js';
import { compileRollupQuery } from '../../src/engines/sql/read/compile-rollup.js';
import { clickhouseDialect, duckdbDialect } from '../../src/engines/sql/dialect.js';
import { planRollup, type RollupPlan } from '../../src/engines/sql/read/rollup-plan.js';
import { ROLLUP_GROUPINGS } from '../../src/engines/sql/rollup-tables.js';

const DAY = 86_400_000;
const START = Date.UTC(2025, 0, 1);
const base: QuerySpec = {
  siteId: 's1',
  tenantIds: null,
  startMs: START,
  endMs: START + 90 * DAY - 1,
  trafficClasses: TRAFFIC_FILTERS.humans,
  filters: {},
  metrics: ['pageviews', 'visitors', 'sessions'],
};

function plan(spec: Partial<QuerySpec>): RollupPlan {
  const d = planRollup(normalizeSpec({ ...base, ...spec }));
  assert.equal(d.use, 'rollup', d.use === 'raw' ? d.reason : '');
  return (d as { plan: RollupPlan }).plan;
}
function rawReason(spec: Partial<QuerySpec>): string {
  const d = planRollup(normalizeSpec({ ...base, ...spec }));
  assert.equal(d.use, 'raw');
  return (d as { reason: string }).reason;
}

test('a whole-day total reads the all-tenants rows of its traffic filter, day by day for a daily series', () => {
  const p = plan({});
  assert.deepEqual(p.tenants, { kind: 'all' });
  assert.equal(p.traffic, 'humans');
  assert.deepEqual(p.grouping, { dim: '', filterDim: '' });
  assert.equal(p.firstDayMs, START);
  assert.equal(p.lastDayMs, START + 89 * DAY);
  assert.equal(p.keyFrom, null);
  assert.equal(plan({ interval: 'day' }).byDay, true);
  for (const [name, classes] of Object.entries(TRAFFIC_FILTERS))
    assert.equal(plan({ trafficClasses: [...classes].reverse() }).traffic, name);
});

test('hourly series, partial days, other traffic sets and unstored dimension combinations stay raw', () => {
  assert.match(rawReason({ interval: 'hour' }), /hourly/);
  assert.match(rawReason({ startMs: START + 3_600_000 }), /whole UTC days/);
  assert.match(rawReason({ endMs: START + 2 * DAY }), /whole UTC days/);
  assert.match(rawReason({ trafficClasses: ['human', 'bot'] }), /traffic/);
  assert.match(rawReason({ dimension: 'page', filters: { country: 'DE' } }), /not stored together/);
  assert.match(rawReason({ filters: { channel: 'Direct', country: 'DE', city: 'Paris' } }), /not stored together/);
});

test('visitors over several tenants stay raw; additive metrics sum the per-tenant rows', () => {
  assert.match(rawReason({ tenantIds: ['a', 'b'] }), /several tenants/);
  assert.deepEqual(plan({ tenantIds: ['a', 'b'], metrics: ['pageviews', 'bounce_rate'] }).tenants, { kind: 'tenants', ids: ['a', 'b'] });
  assert.deepEqual(plan({ tenantIds: ['a'] }).tenants, { kind: 'tenants', ids: ['a'] });
  assert.deepEqual(plan({ tenantIds: [] }).tenants, { kind: 'tenants', ids: [] });
});

test('the tenant filter and the tenant dimension become the tenant scope, not a stored dimension', () => {
  assert.deepEqual(plan({ filters: { tenant: 'a' } }).tenants, { kind: 'tenants', ids: ['a'] });
  assert.deepEqual(plan({ filters: { tenant: null } }).tenants, { kind: 'tenants', ids: [null] });
  assert.deepEqual(plan({ tenantIds: ['b'], filters: { tenant: 'a' } }).tenants, { kind: 'tenants', ids: [] });
  assert.deepEqual(plan({ tenantIds: ['a', 'b'], filters: { tenant: 'a' } }).tenants, { kind: 'tenants', ids: ['a'] });
  const each = plan({ dimension: 'tenant' });
  assert.deepEqual(each.tenants, { kind: 'each' });
  assert.equal(each.keyFrom, 'tenant_id');
  // each row is one tenant's own scope, so visitors stay exact over a tenant list
  assert.deepEqual(plan({ dimension: 'tenant', tenantIds: ['a', 'b'] }).tenants, { kind: 'tenants', ids: ['a', 'b'] });
  const byCountry = plan({ dimension: 'country', filters: { tenant: 'a' } });
  assert.deepEqual(byCountry.grouping, { dim: 'country', filterDim: '' });
  assert.deepEqual(byCountry.tenants, { kind: 'tenants', ids: ['a'] });
});

test('a dimension with a filter on a stored partner reads the pair, whichever side is grouped', () => {
  const landing = plan({ dimension: 'entry_page', filters: { channel: 'Search' }, limit: 11 });
  assert.deepEqual(landing.grouping, { dim: 'entry_page', filterDim: 'channel' });
  assert.equal(landing.keyFrom, 'dim_key');
  assert.equal(landing.filterKeyEq, 'Search');
  const flipped = plan({ dimension: 'country', filters: { city: 'Paris' } });
  assert.deepEqual(flipped.grouping, { dim: 'city', filterDim: 'country' });
  assert.equal(flipped.keyFrom, 'filter_key');
  assert.equal(flipped.dimKeyEq, 'Paris');
  const same = plan({ dimension: 'referrer', filters: { referrer: null }, keyIn: ['x.com', null] });
  assert.deepEqual(same.grouping, { dim: 'referrer', filterDim: '' });
  assert.equal(same.dimKeyEq, null);
  assert.deepEqual(same.keyIn, ['x.com', null]);
  const filterOnly = plan({ filters: { page: '/a' } });
  assert.deepEqual(filterOnly.grouping, { dim: 'page', filterDim: '' });
  assert.equal(filterOnly.keyFrom, null);
});

test('every dimension but the tenant is stored alone', () => {
  const alone = ROLLUP_GROUPINGS.filter((g) => g.filterDim === '' && g.dim !== '').map((g) => g.dim);
  assert.deepEqual([...alone].sort(), DIMENSIONS.filter((d) => d !== 'tenant').sort());
  for (const d of DIMENSIONS) assert.equal(planRollup(normalizeSpec({ ...base, dimension: d })).use, 'rollup', d);
});

test('rollup SQL binds every value (DuckDB) or encodes it with the audited encoder (ClickHouse)', () => {
  const evil = "x' OR 1=1 --";
  const spec = normalizeSpec({
    ...base,
    dimension: 'entry_page',
    filters: { channel: evil },
    keyIn: [evil, null],
    limit: 5,
    orderBy: 'sessions',
  });
  const d = planRollup(spec);
  assert.equal(d.use, 'rollup');
  const p = (d as { plan: RollupPlan }).plan;
  const duck = compileRollupQuery(spec, p, duckdbDialect);
  assert.ok(!duck.sql.includes(evil));
  assert.ok(duck.params.some((x) => x.value === evil));
  assert.equal(duck.hasKey, true);
  assert.equal(duck.hasBucket, false);
  assert.deepEqual(duck.atoms, ['pageviews', 'visitors', 'sessions']);
  const ch = compileRollupQuery(spec, p, clickhouseDialect);
  assert.equal(ch.params.length, 0);
  assert.ok(ch.sql.includes("'x\\' OR 1=1 --'"), ch.sql);
});
