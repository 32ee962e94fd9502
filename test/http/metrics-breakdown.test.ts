import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { metricsHarness, type MetricsHarness } from './metrics-harness.js';
import { countBy, generate, inRange, isHuman, sessions, sortRows, type Line } from './metrics-fixtures.js';

let h: MetricsHarness;
let site: string;
let lines: Line[];
const from = '2025-05-20';
const to = '2025-06-14';

before(async () => {
  h = await metricsHarness();
  site = await h.site();
  lines = generate({ site, firstDay: '2025-05-01', lastDay: '2025-06-14', seed: 11 });
  await h.importEvents(lines as unknown as Record<string, unknown>[]);
});
after(() => h.close());

async function rows(query: Record<string, string | number>, token?: string) {
  const r = await h.call('/v1/metrics/breakdown', { site_id: site, from, to, ...query }, { token });
  assert.equal(r.statusCode, 200, r.body);
  return r.json();
}

test('pageviews by page: rows sorted by value then key (code points), equal to counts of the lines', async () => {
  const span = inRange(lines, from, to).filter(isHuman);
  const body = await rows({ dimension: 'page' });
  assert.deepEqual(body.current, {
    metric: 'pageviews',
    dimension: 'page',
    rows: sortRows(
      countBy(
        span.filter((l) => l.type === 'pageview'),
        (l) => l.path!,
      ),
    ),
  });
  assert.equal(body.current.rows.length, 4);
});

test('sessions by referrer: host-only, lower case, no www; sessions without referrer are the null key', async () => {
  const expected = sortRows(
    countBy(
      sessions(inRange(lines, from, to)).filter((s) => s.traffic === 'human'),
      (s) => s.referrerHost,
    ),
  );
  const body = await rows({ dimension: 'referrer', metric: 'sessions' });
  assert.deepEqual(body.current.rows, expected);
  assert.ok(expected.some((r) => r.key === null));
  assert.ok(expected.some((r) => r.key === 'search.example.com'));
});

test('sessions by page count sessions with a pageview of the page; visitors by country are daily uniques', async () => {
  const ss = sessions(inRange(lines, from, to)).filter((s) => s.traffic === 'human');
  const byPage = new Map<string | null, number>();
  for (const s of ss) for (const p of s.pages) byPage.set(p, (byPage.get(p) ?? 0) + 1);
  assert.deepEqual((await rows({ dimension: 'page', metric: 'sessions' })).current.rows, sortRows(byPage));

  const seen = new Set<string>();
  const byCountry = new Map<string | null, number>();
  for (const l of inRange(lines, from, to).filter(isHuman)) {
    const k = `${l.ts.slice(0, 10)} ${l.visitor_key} ${l.country ?? ''}`;
    if (seen.has(k)) continue;
    seen.add(k);
    byCountry.set(l.country ?? null, (byCountry.get(l.country ?? null) ?? 0) + 1);
  }
  assert.deepEqual((await rows({ dimension: 'country', metric: 'visitors' })).current.rows, sortRows(byCountry));
});

test('limit keeps the top rows; compare is the previous period with the same shape', async () => {
  const body = await rows({ dimension: 'page', limit: 2, compare: 'prev_period' });
  const all = sortRows(
    countBy(
      inRange(lines, from, to).filter((l) => isHuman(l) && l.type === 'pageview'),
      (l) => l.path!,
    ),
  );
  assert.deepEqual(body.current.rows, all.slice(0, 2));
  const prev = sortRows(
    countBy(
      inRange(lines, '2025-04-24', '2025-05-19').filter((l) => isHuman(l) && l.type === 'pageview'),
      (l) => l.path!,
    ),
  );
  assert.deepEqual(body.compare.rows, prev.slice(0, 2));
  assert.equal(body.range.compare_start, '2025-04-24T00:00:00.000Z');
  // data starts on 2025-05-01: the compare window is partly outside the source coverage
  assert.equal(body.availability.compare.status, 'partially_available_outside_source_coverage');
});

test('units follow the spec formula: referrer/sessions/30 days/limit 100 = 8, page/pageviews/90 days/limit 500 = 240', async () => {
  let body = await rows({ dimension: 'referrer', metric: 'sessions', from: '2025-05-16', to: '2025-06-14', limit: 100 });
  assert.equal(body.meta.units_charged, 8);
  body = await rows({ dimension: 'page', metric: 'pageviews', from: '2025-03-17', to: '2025-06-14', limit: 500 });
  assert.equal(body.meta.units_charged, 240);
  body = await rows({ dimension: 'country', metric: 'events', from: '2025-06-14', to: '2025-06-14' });
  assert.equal(body.meta.units_charged, 4, 'limit defaults to 100');
});

test('tenant rows carry tenant_id, slug and name; a restricted token sees only its tenants', async () => {
  const tsite = await h.site();
  const t1 = await h.tenant(tsite, 'north', 'North Shop');
  const t2 = await h.tenant(tsite, 'south', 'South Shop');
  const mine = generate({ site: tsite, firstDay: '2025-06-01', lastDay: '2025-06-14', seed: 5, tenants: [t1, t2] });
  await h.importEvents(mine as unknown as Record<string, unknown>[]);
  const byTenant = countBy(
    inRange(mine, '2025-06-01', '2025-06-14').filter((l) => isHuman(l) && l.type === 'pageview'),
    (l) => l.tenant_id ?? null,
  );
  const label = (k: string | null) =>
    k === t1
      ? { tenant_id: t1, tenant_slug: 'north', tenant_name: 'North Shop' }
      : k === t2
        ? { tenant_id: t2, tenant_slug: 'south', tenant_name: 'South Shop' }
        : {};
  const q = { site_id: tsite, dimension: 'tenant', from: '2025-06-01', to: '2025-06-14' };

  let r = await h.call('/v1/metrics/breakdown', q);
  assert.equal(r.statusCode, 200, r.body);
  assert.equal(r.json().availability.route, 'breakdown_tenant');
  assert.deepEqual(
    r.json().current.rows,
    sortRows(byTenant).map((row) => ({ ...row, ...label(row.key) })),
  );
  assert.equal(r.json().current.rows.length, 3, 'two tenants and the events without one');

  const restricted = await h.newToken({ tenantIds: [t2] });
  r = await h.call('/v1/metrics/breakdown', q, { token: restricted });
  assert.equal(r.statusCode, 200, r.body);
  assert.deepEqual(r.json().current.rows, [{ key: t2, value: byTenant.get(t2), ...label(t2) }]);

  // any other dimension needs the token's tenant_id, and then counts that tenant only
  r = await h.call('/v1/metrics/breakdown', { ...q, dimension: 'page' }, { token: restricted });
  assert.equal(r.statusCode, 403);
  r = await h.call('/v1/metrics/breakdown', { ...q, dimension: 'page', tenant_id: t1 }, { token: restricted });
  assert.equal(r.statusCode, 403, 'a tenant outside the allowlist');
  r = await h.call('/v1/metrics/breakdown', { ...q, dimension: 'page', tenant_id: t2 }, { token: restricted });
  assert.equal(r.statusCode, 200);
  const t2Pages = countBy(
    inRange(mine, '2025-06-01', '2025-06-14').filter((l) => isHuman(l) && l.type === 'pageview' && l.tenant_id === t2),
    (l) => l.path!,
  );
  assert.deepEqual(r.json().current.rows, sortRows(t2Pages));
  assert.equal(r.json().availability.route, 'breakdown_tenant');
});

test('extended-only dimensions: 409 on a strict site and for a period before extended data, nothing charged', async () => {
  const strict = await h.site({ profile: 'strict' });
  const used = async () => (await h.call('/v1/usage/current', {})).json().units_used as number;
  const before = await used();
  let r = await h.call('/v1/metrics/breakdown', { site_id: strict, dimension: 'campaign' });
  assert.equal(r.statusCode, 409);
  let err = r.json().error;
  assert.equal(err.code, 'REPORT_LOCKED_BY_PROFILE');
  assert.equal(err.details.route, 'breakdown');
  assert.equal(err.details.classification, 'extended_only');
  assert.equal(err.details.currentProfile, 'strict');
  assert.equal(err.details.availability.current.status, 'locked_by_profile');
  assert.equal(err.details.availability.current.reason, 'extended_data_required');

  r = await h.call('/v1/metrics/timeseries', { site_id: strict, filters: JSON.stringify({ city: 'Paris' }) });
  assert.equal(r.json().error.code, 'REPORT_LOCKED_BY_PROFILE');
  assert.equal(r.json().error.details.route, 'timeseries');

  const later = await h.site({ profile: 'extended', effectiveAt: '2025-06-12T00:00:00.000Z' });
  r = await h.call('/v1/metrics/breakdown', { site_id: later, dimension: 'region', from: '2025-06-01', to: '2025-06-11' });
  assert.equal(r.statusCode, 409);
  err = r.json().error;
  assert.equal(err.code, 'REPORT_NOT_AVAILABLE_FOR_REQUESTED_PERIOD');
  assert.equal(err.details.availability.current.reason, 'requested_period_has_no_extended_data');
  assert.equal(err.details.availability.collectionProfileEffectiveAt, '2025-06-12T00:00:00.000Z');
  assert.equal(await used(), before);

  // strict-safe dimensions stay readable on the strict site
  r = await h.call('/v1/metrics/breakdown', { site_id: strict, dimension: 'channel' });
  assert.equal(r.statusCode, 200);
  assert.equal(r.json().availability.current.status, 'available');
  assert.equal(r.json().meta.surface.mode, 'strict');
});
