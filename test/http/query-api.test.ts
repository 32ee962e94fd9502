// POST /api/v2/query through HTTP: tz=UTC answers what /v1 answers, a site's zone moves its days (DST
// days and +05:45 exact), Plausible's filters, order, pages, comparisons and CSV, and the refusals, each
// naming its field. The engines' own agreement (DuckDB, ClickHouse) is test/engines/query-api-engines.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { metricsHarness, pv, type MetricsHarness } from './metrics-harness.js';
import { generate, type Line } from './metrics-fixtures.js';
import { STRICT_ACTIONS_NOTE } from '../../src/services/query-api/serve-query.js';

let h: MetricsHarness;
let site: string;
let kathmandu: string;
let newYork: string;
let strict: string;
const from = '2025-05-20';
const to = '2025-06-14';

before(async () => {
  h = await metricsHarness({ now: '2025-11-20T12:00:00Z' });
  site = await h.site();
  kathmandu = await h.site({ timezone: 'Asia/Kathmandu' });
  newYork = await h.site({ timezone: 'America/New_York' });
  strict = await h.site({ profile: 'strict' });
  const lines: Line[] = generate({ site, firstDay: '2025-05-01', lastDay: '2025-06-14', seed: 11 });
  await h.importEvents(lines as unknown as Record<string, unknown>[]);
  await h.importEvents([
    // Kathmandu is UTC+05:45: 18:14Z is 23:59 on the 1st there, 18:16Z is 00:01 on the 2nd
    pv(kathmandu, '2025-06-01T18:14:00Z', '/late', 'k1'),
    pv(kathmandu, '2025-06-01T18:16:00Z', '/early', 'k2'),
    pv(kathmandu, '2025-06-01T18:17:00Z', '/early', 'k1'),
    // New York falls back at 06:00Z on 2 November 2025: 05:30Z and 06:30Z both read 01:30 there
    pv(newYork, '2025-11-02T03:59:00Z', '/a', 'n1'),
    pv(newYork, '2025-11-02T04:00:00Z', '/a', 'n1'),
    pv(newYork, '2025-11-02T05:30:00Z', '/b', 'n2'),
    pv(newYork, '2025-11-02T06:30:00Z', '/b', 'n3'),
    pv(newYork, '2025-11-03T04:59:00Z', '/c', 'n4'),
    pv(newYork, '2025-11-03T05:00:00Z', '/c', 'n4'),
  ]);
});
after(() => h.close());

async function query(body: Record<string, unknown>, opts: { token?: string; accept?: string } = {}) {
  const headers: Record<string, string> = opts.accept ? { accept: opts.accept } : {};
  return h.post('/api/v2/query', body, { token: opts.token ?? h.secret, headers });
}

async function ok(body: Record<string, unknown>) {
  const r = await query(body);
  assert.equal(r.statusCode, 200, r.body);
  return r.json() as { results: { dimensions: (string | number)[]; metrics: number[]; comparison?: any }[]; meta: any; query: any };
}

async function v1(path: string, q: Record<string, string | number>) {
  const r = await h.call(path, { site_id: site, from, to, ...q });
  assert.equal(r.statusCode, 200, r.body);
  return r.json().current;
}

test('a UTC site: each day of visitors, visits, pageviews and events equals /v1 timeseries', async () => {
  const body = await ok({
    site_id: site,
    date_range: [from, to],
    metrics: ['visitors', 'visits', 'pageviews', 'events'],
    dimensions: ['time:day'],
  });
  const pairs = [
    ['visitors', 'visitors'],
    ['visits', 'sessions'],
    ['pageviews', 'pageviews'],
    ['events', 'events'],
  ] as const;
  for (const [i, [mine, theirs]] of pairs.entries()) {
    const series = await v1('/v1/metrics/timeseries', { metric: theirs });
    const expected = series.points
      .filter((p: { value: number }) => p.value > 0)
      .map((p: { start: string; value: number }) => [p.start.slice(0, 10), p.value]);
    assert.deepEqual(
      body.results.filter((r) => r.metrics[i] > 0).map((r) => [r.dimensions[0], r.metrics[i]]),
      expected,
      mine,
    );
    assert.ok(expected.length > 10, `${mine}: the fixture has data on most days`);
  }
});

test('a UTC site: breakdowns by page, country and channel equal /v1 breakdowns, "(none)" for no value', async () => {
  for (const [dimension, v1Dimension, metric, v1Metric] of [
    ['event:page', 'page', 'pageviews', 'pageviews'],
    ['event:page', 'page', 'visitors', 'visitors'],
    ['visit:country', 'country', 'visits', 'sessions'],
    ['visit:channel', 'channel', 'visitors', 'visitors'],
    ['visit:referrer', 'referrer', 'pageviews', 'pageviews'],
  ]) {
    const mine = await ok({ site_id: site, date_range: [from, to], metrics: [metric], dimensions: [dimension] });
    const theirs = await v1('/v1/metrics/breakdown', { metric: v1Metric, dimension: v1Dimension });
    assert.deepEqual(
      mine.results.map((r) => [r.dimensions[0], r.metrics[0]]),
      theirs.rows.map((r: { key: string | null; value: number }) => [r.key ?? '(none)', r.value]),
      `${metric} by ${dimension}`,
    );
  }
});

test('Asia/Kathmandu (+05:45): an event at 23:59 local counts on its local day, one at 00:01 on the next', async () => {
  const body = await ok({
    site_id: kathmandu,
    date_range: ['2025-06-01', '2025-06-02'],
    metrics: ['visitors', 'pageviews'],
    dimensions: ['time:day'],
  });
  assert.deepEqual(body.results, [
    { dimensions: ['2025-06-01'], metrics: [1, 1] },
    { dimensions: ['2025-06-02'], metrics: [2, 2] },
  ]);
  const one = await ok({
    site_id: kathmandu,
    date_range: ['2025-06-02', '2025-06-02'],
    metrics: ['pageviews'],
    dimensions: ['event:page'],
  });
  assert.deepEqual(one.results, [{ dimensions: ['/early'], metrics: [2] }]);
  assert.equal(one.meta.timezone, 'Asia/Kathmandu');
  assert.deepEqual(one.query.date_range, ['2025-06-01T18:15:00.000Z', '2025-06-02T18:14:59.999Z']);
});

test('America/New_York on the day it falls back: 25 hours, the repeated 01:00 one bucket, days by the local clock', async () => {
  const days = await ok({ site_id: newYork, date_range: ['2025-11-01', '2025-11-03'], metrics: ['pageviews'], dimensions: ['time:day'] });
  // 03:59Z is 23:59 EDT on the 1st; 04:59Z on the 3rd is 23:59 EST on the 2nd
  assert.deepEqual(days.results, [
    { dimensions: ['2025-11-01'], metrics: [1] },
    { dimensions: ['2025-11-02'], metrics: [4] },
    { dimensions: ['2025-11-03'], metrics: [1] },
  ]);
  const hours = await ok({
    site_id: newYork,
    date_range: ['2025-11-02', '2025-11-02'],
    metrics: ['pageviews', 'visitors'],
    dimensions: ['time:hour'],
    include: { time_labels: true },
  });
  assert.deepEqual(hours.results, [
    { dimensions: ['2025-11-02 00:00:00'], metrics: [1, 1] },
    { dimensions: ['2025-11-02 01:00:00'], metrics: [2, 2] },
    { dimensions: ['2025-11-02 23:00:00'], metrics: [1, 1] },
  ]);
  assert.equal(hours.meta.time_labels.length, 24, 'one label per local hour: the repeated hour is one bucket');
  assert.equal(hours.meta.time_labels[1], '2025-11-02 01:00:00');
});

test('filters: is_not, contains without case, matches (RE2), not, or, has_done, and "(none)"', async () => {
  const pages = async (filters: unknown[]) =>
    (await ok({ site_id: site, date_range: [from, to], metrics: ['pageviews'], dimensions: ['event:page'], filters })).results.map(
      (r) => r.dimensions[0],
    );
  const all = await pages([]);
  assert.deepEqual(new Set(all), new Set(['/', '/pricing', '/blog/a', '/café']));
  assert.deepEqual(new Set(await pages([['is_not', 'event:page', ['/', '/pricing']]])), new Set(['/blog/a', '/café']));
  assert.deepEqual(await pages([['contains', 'event:page', ['CAF'], { case_sensitive: false }]]), ['/café']);
  assert.deepEqual(await pages([['contains', 'event:page', ['CAF']]]), []);
  assert.deepEqual(
    await pages([['matches', 'event:page', ['^/(blog|pricing)']]]).then((x) => new Set(x)),
    new Set(['/blog/a', '/pricing']),
  );
  assert.deepEqual(await pages([['not', ['matches', 'event:page', ['^/b']]]]).then((x) => new Set(x)), new Set(['/', '/pricing', '/café']));
  assert.deepEqual(
    await pages([
      [
        'or',
        [
          ['is', 'event:page', ['/']],
          ['is', 'event:page', ['/café']],
        ],
      ],
    ]).then((x) => new Set(x)),
    new Set(['/', '/café']),
  );
  const countries = async (filters: unknown[]) =>
    (await ok({ site_id: site, date_range: [from, to], metrics: ['visits'], dimensions: ['visit:country'], filters })).results;
  const byCountry = await countries([]);
  const none = byCountry.find((r) => r.dimensions[0] === '(none)')!;
  assert.ok(none, 'visits without a country are "(none)"');
  assert.deepEqual(await countries([['is', 'visit:country', ['(none)']]]), [none]);
  const notDe = await countries([['is_not', 'visit:country', ['DE']]]);
  assert.deepEqual(
    notDe.map((r) => r.dimensions[0]).sort(),
    byCountry
      .map((r) => r.dimensions[0])
      .filter((c) => c !== 'DE')
      .sort(),
    'is_not keeps the visits without a value',
  );
  const converted = await countries([['has_done', ['is', 'event:page', ['/pricing']]]]);
  const notConverted = await countries([['has_not_done', ['is', 'event:page', ['/pricing']]]]);
  const total = (rows: { metrics: number[] }[]) => rows.reduce((s, r) => s + r.metrics[0], 0);
  assert.ok(total(converted) > 0 && total(notConverted) > 0);
  assert.equal(total(converted) + total(notConverted), total(byCountry), 'has_done and has_not_done split the visits');
});

test('order_by, pagination and total_rows; percentage of the total', async () => {
  const base = { site_id: site, date_range: [from, to], metrics: ['visitors', 'percentage'], dimensions: ['event:page'] };
  const whole = await ok({ ...base, include: { total_rows: true } });
  assert.equal(whole.meta.total_rows, 4);
  const visitors = whole.results.map((r) => r.metrics[0]);
  assert.deepEqual(
    visitors,
    [...visitors].sort((a, b) => b - a),
    'the first metric descending by default',
  );
  const totalVisitors = (await ok({ site_id: site, date_range: [from, to], metrics: ['visitors'] })).results[0].metrics[0];
  for (const r of whole.results) assert.equal(r.metrics[1], Math.round((r.metrics[0] * 1000) / totalVisitors) / 10);
  const page2 = await ok({
    ...base,
    order_by: [['event:page', 'asc']],
    pagination: { limit: 2, offset: 2 },
    include: { total_rows: true },
  });
  assert.deepEqual(
    page2.results.map((r) => r.dimensions[0]),
    ['/café', '/pricing'],
  );
  assert.equal(page2.meta.total_rows, 4);
});

test('compare with the previous period: each row carries the other window and the change', async () => {
  const body = await ok({
    site_id: site,
    date_range: ['2025-06-08', '2025-06-14'],
    metrics: ['visitors', 'bounce_rate'],
    include: { compare: 'previous_period' },
  });
  const before = await ok({ site_id: site, date_range: ['2025-06-01', '2025-06-07'], metrics: ['visitors', 'bounce_rate'] });
  const [now] = body.results;
  assert.deepEqual(now.comparison.metrics, before.results[0].metrics);
  const [v, was] = [now.metrics[0], before.results[0].metrics[0]];
  assert.equal(now.comparison.change[0], Math.round(((v - was) * 100) / was));
  assert.equal(now.comparison.change[1], Math.round((now.metrics[1] - before.results[0].metrics[1]) * 10) / 10);
});

test('Accept: text/csv: a header of dimensions then metrics, one record per row', async () => {
  const r = await query(
    { site_id: site, date_range: [from, to], metrics: ['pageviews'], dimensions: ['event:page'], order_by: [['event:page', 'asc']] },
    { accept: 'text/csv' },
  );
  assert.equal(r.statusCode, 200, r.body);
  assert.match(r.headers['content-type'] as string, /^text\/csv/);
  const lines = r.body.trimEnd().split('\r\n');
  assert.equal(lines[0], 'event:page,pageviews');
  assert.deepEqual(
    lines.slice(1).map((l) => l.split(',')[0]),
    ['/', '/blog/a', '/café', '/pricing'],
  );
});

test('site_id may be one of the site hostnames; a site of another workspace and a made-up one get the same 403', async () => {
  const s = await h.catalog.getSite(site);
  const byHost = await ok({ site_id: s!.hostnames[0], date_range: [from, to], metrics: ['pageviews'] });
  const byId = await ok({ site_id: site, date_range: [from, to], metrics: ['pageviews'] });
  assert.deepEqual(byHost.results, byId.results);
  assert.equal(byHost.query.site_id, site);
  const other = await h.workspace('pro');
  const theirs = await h.catalog.createSite({
    workspaceId: other.id,
    name: 'theirs',
    hostnames: ['theirs.example'],
    collectionProfile: 'extended',
  });
  const a = await query({ site_id: theirs.id, date_range: '7d', metrics: ['visitors'] });
  const b = await query({ site_id: 'theirs.example', date_range: '7d', metrics: ['visitors'] });
  const c = await query({ site_id: 'nobody.example', date_range: '7d', metrics: ['visitors'] });
  assert.equal(a.statusCode, 403);
  assert.deepEqual(
    [b.statusCode, b.json().error.code, b.json().error.message],
    [a.statusCode, a.json().error.code, a.json().error.message],
  );
  assert.deepEqual(
    [c.statusCode, c.json().error.code, c.json().error.message],
    [a.statusCode, a.json().error.code, a.json().error.message],
  );
});

test('refusals name the field and say what to do; none is charged', async () => {
  const usage = async () => (await ok({ site_id: site, date_range: '7d', metrics: ['visitors'] })).meta.usage.used_units;
  const before = await usage();
  const cases: [Record<string, unknown>, number, string, RegExp][] = [
    [
      { site_id: site, date_range: '7d', metrics: ['visitors'], filters: [['equals', 'event:page', ['/']]] },
      422,
      'filters[0][0]',
      /unknown operator/,
    ],
    [
      { site_id: site, date_range: '7d', metrics: ['visitors'], filters: [['matches', 'event:page', ['(?=a)']]] },
      422,
      'filters[0][2][0]',
      /RE2/,
    ],
    [{ site_id: site, date_range: '7d', metrics: ['visitors'], dimensions: ['event:hostname'] }, 422, 'dimensions[0]', /hostname/],
    [{ site_id: site, date_range: '7d', metrics: ['bounce_rate'], dimensions: ['event:name'] }, 422, 'metrics', /visits/],
    [{ site_id: site, date_range: ['2023-01-01', '2023-01-31'], metrics: ['visitors'] }, 422, 'date_range', /retention|before/],
    [{ site_id: strict, date_range: '7d', metrics: ['visitors'], dimensions: ['visit:utm_source'] }, 409, 'dimensions', /strict/],
    [
      { site_id: strict, date_range: '7d', metrics: ['visitors'], filters: [['is', 'event:props:plan', ['pro']]] },
      409,
      'dimensions',
      /custom properties/,
    ],
  ];
  for (const [body, status, field, message] of cases) {
    const r = await query(body);
    assert.equal(r.statusCode, status, `${JSON.stringify(body)}: ${r.body}`);
    const err = r.json().error;
    assert.match(err.message, message, r.body);
    if (status === 422 && err.code === 'INVALID_PARAMS') assert.equal(err.details.field, field, r.body);
  }
  // the usage read itself costs 2 units: only it was charged since the first
  assert.equal(await usage(), before + 2);
});

test('units: 2 x ceil(days / 30) x (dimensions + 1) x 3 with hours x 2 with a comparison', async () => {
  const units = async (body: Record<string, unknown>) => (await ok({ site_id: site, ...body })).meta.units_charged;
  assert.equal(await units({ date_range: ['2025-05-01', '2025-06-14'], metrics: ['visitors'] }), 2 * 2 * 1);
  assert.equal(
    await units({ date_range: ['2025-05-01', '2025-06-14'], metrics: ['visitors'], dimensions: ['event:page', 'visit:country'] }),
    2 * 2 * 3,
  );
  assert.equal(await units({ date_range: ['2025-06-01', '2025-06-01'], metrics: ['visitors'], dimensions: ['time:hour'] }), 2 * 1 * 2 * 3);
  assert.equal(
    await units({ date_range: ['2025-06-01', '2025-06-07'], metrics: ['visitors'], include: { compare: 'previous_period' } }),
    2 * 1 * 1 * 2,
  );
});

test('a POST without a token is 401, with a query string parameter 422', async () => {
  const r = await h.app.inject({
    method: 'POST',
    url: '/api/v2/query',
    payload: { site_id: site, date_range: '7d', metrics: ['visitors'] },
  });
  assert.equal(r.statusCode, 401);
  const q = await h.app.inject({
    method: 'POST',
    url: '/api/v2/query?site_id=x',
    headers: { authorization: `Bearer ${h.secret}` },
    payload: { site_id: site, date_range: '7d', metrics: ['visitors'] },
  });
  assert.equal(q.statusCode, 422, q.body);
});

test('a site that switched to Extended: a range wholly before the switch is 409 for utm_* and the like, one across it says so in meta.notes', async () => {
  const switched = await h.site({ effectiveAt: '2025-06-05T00:00:00.000Z' });
  await h.importEvents([
    pv(switched, '2025-06-03T10:00:00Z', '/', 's1'),
    pv(switched, '2025-06-06T10:00:00Z', '/', 's2', { utm_source: 'mail' }),
  ]);
  const before = await query({
    site_id: switched,
    date_range: ['2025-06-01', '2025-06-04'],
    metrics: ['visitors'],
    dimensions: ['visit:utm_source'],
  });
  assert.equal(before.statusCode, 409, before.body);
  assert.equal(before.json().error.code, 'REPORT_NOT_AVAILABLE_FOR_REQUESTED_PERIOD');
  const across = await ok({
    site_id: switched,
    date_range: ['2025-06-01', '2025-06-10'],
    metrics: ['visitors'],
    dimensions: ['visit:utm_source'],
  });
  assert.match(across.meta.notes[0], /since 2025-06-05/);
  // equal values: by the dimension's value, no value last (as /v1)
  assert.deepEqual(across.results, [
    { dimensions: ['mail'], metrics: [1] },
    { dimensions: ['(none)'], metrics: [1] },
  ]);
  const plain = await ok({ site_id: switched, date_range: ['2025-06-01', '2025-06-10'], metrics: ['visitors'] });
  assert.equal(plain.meta.notes, undefined, 'a question without those fields has nothing to note');
});

test('custom properties: a dimension ("(none)" for events without it) and a filter; goals: a dimension, a filter and conversion rates', async () => {
  const shop = await h.site();
  await h.catalog.createGoal({ siteId: shop, name: 'Pricing', type: 'PAGEVIEW_MATCH', intent: 'lead', pattern: '/pricing*', filters: {} });
  await h.catalog.createGoal({ siteId: shop, name: 'Signup', type: 'EVENT_MATCH', intent: 'lead', pattern: 'signup', filters: {} });
  await h.importEvents([
    pv(shop, '2025-06-01T10:00:00Z', '/', 'p1', { props: { plan: 'pro', ab: 'x' } }),
    pv(shop, '2025-06-01T10:01:00Z', '/pricing', 'p1', { props: { plan: 'pro' } }),
    pv(shop, '2025-06-01T11:00:00Z', '/', 'p2', { props: { plan: 'free' } }),
    pv(shop, '2025-06-01T12:00:00Z', '/pricing/team', 'p3'),
    {
      ts: '2025-06-01T12:05:00Z',
      type: 'action',
      site_id: shop,
      path: '/pricing/team',
      visitor_key: 'p3',
      action_name: 'signup',
      props: { plan: 'team' },
    },
    pv(shop, '2025-06-01T13:00:00Z', '/', 'p4'),
  ]);
  const range = ['2025-06-01', '2025-06-01'];
  const byPlan = await ok({ site_id: shop, date_range: range, metrics: ['visitors', 'events'], dimensions: ['event:props:plan'] });
  assert.deepEqual(byPlan.results, [
    { dimensions: ['(none)'], metrics: [2, 2] },
    { dimensions: ['free'], metrics: [1, 1] },
    { dimensions: ['pro'], metrics: [1, 2] },
    { dimensions: ['team'], metrics: [1, 1] },
  ]);
  const pro = await ok({ site_id: shop, date_range: range, metrics: ['pageviews'], filters: [['is', 'event:props:plan', ['pro']]] });
  assert.deepEqual(pro.results, [{ dimensions: [], metrics: [2] }]);
  const notPro = await ok({ site_id: shop, date_range: range, metrics: ['events'], filters: [['is_not', 'event:props:plan', ['pro']]] });
  assert.deepEqual(notPro.results, [{ dimensions: [], metrics: [4] }], 'events without the property are not "pro"');

  const goals = await ok({
    site_id: shop,
    date_range: range,
    metrics: ['visitors', 'events', 'conversion_rate'],
    dimensions: ['event:goal'],
  });
  // 4 visitors; Pricing: p1 and p3 viewed a page under /pricing (2 events); Signup: p3 (1 event)
  assert.deepEqual(goals.results, [
    { dimensions: ['Pricing'], metrics: [2, 2, 50] },
    { dimensions: ['Signup'], metrics: [1, 1, 25] },
  ]);
  const goalNamed = async (filter: unknown[]) =>
    (await ok({ site_id: shop, date_range: range, metrics: ['events'], filters: [filter] })).results[0].metrics[0];
  assert.equal(await goalNamed(['contains', 'event:goal', ['pric']]), 0, 'goal names match case-sensitively by default');
  assert.equal(await goalNamed(['contains', 'event:goal', ['pric'], { case_sensitive: false }]), 2);
  assert.equal(await goalNamed(['is', 'event:goal', ['signup'], { case_sensitive: false }]), 1);
  const converted = await ok({
    site_id: shop,
    date_range: range,
    metrics: ['visitors', 'group_conversion_rate'],
    dimensions: ['visit:entry_page'],
    filters: [['is', 'event:goal', ['Pricing']]],
  });
  // entry pages: "/" for p1, p2 and p4 (1 of 3 converted), /pricing/team for p3 (1 of 1)
  assert.deepEqual(converted.results, [
    { dimensions: ['/'], metrics: [1, 33.3] },
    { dimensions: ['/pricing/team'], metrics: [1, 100] },
  ]);
});

test('event:goal on a site without goals: no rows (not a failure), grouped alone, by time, or filtered by a goal name', async () => {
  const bare = await h.site();
  await h.importEvents([pv(bare, '2025-06-10T10:00:00Z', '/pricing', 'g1')]);
  const body = { site_id: bare, date_range: ['2025-06-10', '2025-06-10'], metrics: ['visitors', 'events', 'conversion_rate'] };
  assert.deepEqual((await ok({ ...body, dimensions: ['event:goal'] })).results, []);
  assert.deepEqual((await ok({ ...body, dimensions: ['event:goal', 'time:day'] })).results, []);
  assert.deepEqual((await ok({ ...body, metrics: ['visitors'], filters: [['is', 'event:goal', ['Pricing']]] })).results, [
    { dimensions: [], metrics: [0] },
  ]);
});

test('answers are kept in the response cache under the data version: the same body again reads nothing and is charged the same; new events are read at once', async () => {
  const zoned = await h.site({ timezone: 'Asia/Kathmandu' });
  await h.importEvents([pv(zoned, '2025-06-10T10:00:00Z', '/a', 'k1'), pv(zoned, '2025-06-10T11:00:00Z', '/b', 'k2')]);
  const engine = h.container.analytics!.engine;
  const queryRows = engine.queryRows.bind(engine);
  const run = engine.run.bind(engine);
  let reads = 0;
  engine.queryRows = (r, o) => {
    reads++;
    return queryRows(r, o);
  };
  engine.run = (s, o) => {
    reads++;
    return run(s, o);
  };
  try {
    const body = {
      site_id: zoned,
      date_range: ['2025-06-10', '2025-06-10'],
      metrics: ['visitors', 'pageviews'],
      dimensions: ['event:page'],
    };
    const first = await ok(body);
    const afterFirst = reads;
    assert.ok(afterFirst > 0, 'the first answer is read');
    const again = await ok(body);
    assert.equal(reads, afterFirst, 'the same body again reads nothing');
    assert.deepEqual(again.results, first.results);
    assert.equal(again.meta.units_charged, first.meta.units_charged, 'a kept answer is charged as a read one');
    assert.equal(again.meta.usage.used_units, first.meta.usage.used_units + first.meta.units_charged);
    assert.notEqual(again.meta.request_id, first.meta.request_id, 'its own request id');
    // another tenant, traffic or filter is another answer
    await ok({ ...body, traffic: 'all' });
    assert.ok(reads > afterFirst, 'another traffic is read');
    // an import moves the data version on: the next answer counts the new event
    await h.importEvents([pv(zoned, '2025-06-10T12:00:00Z', '/a', 'k3')]);
    const fresh = await ok(body);
    assert.deepEqual(
      fresh.results.map((r) => [r.dimensions[0], r.metrics[0]]),
      [
        ['/a', 2],
        ['/b', 1],
      ],
    );
  } finally {
    engine.queryRows = queryRows;
    engine.run = run;
  }
});

test("event:props groups by the custom properties' keys: each key its visitors and events (an event with two keys counts under both), none for events without", async () => {
  const shop = await h.site({ timezone: 'Asia/Kathmandu' });
  await h.importEvents([
    pv(shop, '2025-06-01T10:00:00Z', '/', 'k1', { props: { plan: 'pro', ab: 'x' } }),
    pv(shop, '2025-06-01T10:01:00Z', '/pricing', 'k1', { props: { plan: 'pro' } }),
    pv(shop, '2025-06-01T11:00:00Z', '/', 'k2', { props: { plan: 'free' } }),
    pv(shop, '2025-06-01T12:00:00Z', '/docs', 'k3'),
    {
      ts: '2025-06-01T12:05:00Z',
      type: 'action',
      site_id: shop,
      path: '/docs',
      visitor_key: 'k3',
      action_name: 'signup',
      props: { ab: 'y' },
    },
  ]);
  const range = ['2025-06-01', '2025-06-01'];
  const keys = await ok({ site_id: shop, date_range: range, metrics: ['visitors', 'events'], dimensions: ['event:props'] });
  // most visitors first, then by key
  assert.deepEqual(keys.results, [
    { dimensions: ['ab'], metrics: [2, 2] },
    { dimensions: ['plan'], metrics: [2, 3] },
  ]);
  // with the page's filters: the keys of the events kept
  const onHome = await ok({
    site_id: shop,
    date_range: range,
    metrics: ['visitors'],
    dimensions: ['event:props'],
    filters: [['is', 'event:page', ['/']]],
  });
  assert.deepEqual(onHome.results, [
    { dimensions: ['plan'], metrics: [2] },
    { dimensions: ['ab'], metrics: [1] },
  ]);
  // by day, in the site's zone
  const daily = await ok({ site_id: shop, date_range: range, metrics: ['visitors'], dimensions: ['time:day', 'event:props'] });
  assert.deepEqual(
    daily.results.map((r) => r.dimensions),
    [
      ['2025-06-01', 'ab'],
      ['2025-06-01', 'plan'],
    ],
  );
  // a filter names one property; event:props with event:goal is refused, naming the field
  const filtered = await query({ site_id: shop, date_range: range, metrics: ['visitors'], filters: [['is', 'event:props', ['plan']]] });
  assert.equal(filtered.statusCode, 422, filtered.body);
  assert.match(filtered.json().error.message, /event:props:<key>/);
  const withGoal = await query({ site_id: shop, date_range: range, metrics: ['visitors'], dimensions: ['event:props', 'event:goal'] });
  assert.equal(withGoal.statusCode, 422, withGoal.body);
  assert.equal(withGoal.json().error.details.field, 'dimensions[0]');
  // a session metric with it is refused as with any event dimension but the page
  const session = await query({ site_id: shop, date_range: range, metrics: ['bounce_rate'], dimensions: ['event:props'] });
  assert.equal(session.statusCode, 422, session.body);
});

test("event:action groups the actions by name and detail (never a pageview): a UTC site's visits and events equal /v1's actions report row for row, and a value filters", async () => {
  const shop = await h.site();
  const act = (at: string, visitor: string, fields: Record<string, string>) => ({
    ts: `2025-06-01T${at}:00Z`,
    type: 'action',
    site_id: shop,
    path: '/',
    visitor_key: visitor,
    ...fields,
  });
  await h.importEvents([
    pv(shop, '2025-06-01T10:00:00Z', '/', 'k1'),
    act('10:01', 'k1', { action_name: 'outbound.click', action_target_host: 'partner.example' }),
    act('10:02', 'k1', { action_name: 'outbound.click', action_target_host: 'partner.example' }),
    act('10:03', 'k1', { action_name: 'outbound.click', action_target_host: 'docs.example' }),
    pv(shop, '2025-06-01T11:00:00Z', '/', 'k2'),
    act('11:01', 'k2', { action_name: 'outbound.click', action_target_host: 'partner.example' }),
    act('11:02', 'k2', { action_name: 'form.submit', form_id: 'signup' }),
    act('11:03', 'k2', { action_name: 'ui.click', action_id: 'buy' }),
    act('11:04', 'k2', { action_name: 'ui.click' }),
    act('11:05', 'k2', { action_name: 'custom', event_name: 'Trial started' }),
    pv(shop, '2025-06-01T12:00:00Z', '/', 'k3'),
    act('12:01', 'k3', { action_name: 'ui.click', action_id: 'buy' }),
  ]);
  const range = ['2025-06-01', '2025-06-01'];
  const r = await h.call('/v1/reports/actions', { site_id: shop, from: range[0], to: range[1], limit: 100 });
  assert.equal(r.statusCode, 200, r.body);
  const theirs = r.json().current.actions as {
    event_name: string | null;
    action_name: string;
    action_target_host?: string | null;
    form_id?: string | null;
    action_id?: string | null;
    sessions: number;
    occurrences: number;
  }[];
  const label = (a: (typeof theirs)[number]) => {
    const detail = a.action_target_host ?? a.form_id ?? a.action_id ?? null;
    return detail === null ? (a.event_name ?? a.action_name) : `${a.event_name ?? a.action_name} · ${detail}`;
  };
  const want = Object.fromEntries(theirs.map((a) => [label(a), [a.sessions, a.occurrences]]));
  assert.deepEqual(want, {
    'outbound.click · partner.example': [2, 3],
    'outbound.click · docs.example': [1, 1],
    'form.submit · signup': [1, 1],
    'ui.click · buy': [2, 2],
    'ui.click': [1, 1],
    'Trial started': [1, 1],
  });
  const ours = await ok({ site_id: shop, date_range: range, metrics: ['visits', 'events'], dimensions: ['event:action'] });
  assert.deepEqual(Object.fromEntries(ours.results.map((x) => [x.dimensions[0], x.metrics])), want);
  // a page named (every action here was on /) keeps the actions' visits: a page does not narrow actions to pageviews
  const onHome = await ok({
    site_id: shop,
    date_range: range,
    metrics: ['visits', 'events'],
    dimensions: ['event:action'],
    filters: [['is', 'event:page', ['/']]],
  });
  assert.deepEqual(Object.fromEntries(onHome.results.map((x) => [x.dimensions[0], x.metrics])), want);
  // a value is a filter: that action's events alone, and the visitors who did it
  const one = await ok({
    site_id: shop,
    date_range: range,
    metrics: ['visitors', 'events'],
    filters: [['is', 'event:action', ['ui.click · buy']]],
  });
  assert.deepEqual(one.results[0].metrics, [2, 2]);
  const hosts = await ok({ site_id: shop, date_range: range, metrics: ['events'], filters: [['contains', 'event:action', ['.example']]] });
  assert.deepEqual(hosts.results[0].metrics, [4]);
  assert.equal(ours.meta.notes, undefined);
});

test('a strict site: event:action lists the simple actions alone, as /v1 does, and its notes say so, even where actions of other families were stored before the switch', async () => {
  // strict since 2 June: on 1 June the site collected under Extended, custom events included
  const shop = await h.site({ profile: 'strict', effectiveAt: '2025-06-02T00:00:00Z' });
  const act = (at: string, fields: Record<string, string>) => ({
    ts: `2025-06-01T${at}:00Z`,
    type: 'action',
    site_id: shop,
    path: '/',
    visitor_key: 'k1',
    ...fields,
  });
  await h.importEvents([
    pv(shop, '2025-06-01T10:00:00Z', '/', 'k1'),
    act('10:01', { action_name: 'outbound.click', action_target_host: 'partner.example' }),
    act('10:02', { action_name: 'custom', event_name: 'Trial started' }),
    act('10:03', { action_name: 'error.js' }),
  ]);
  const range = ['2025-06-01', '2025-06-01'];
  const r = await h.call('/v1/reports/actions', { site_id: shop, from: range[0], to: range[1], limit: 100 });
  assert.deepEqual(
    r.json().current.actions.map((a: { action_name: string; sessions: number }) => [a.action_name, a.sessions]),
    [['outbound.click', 1]],
  );
  const ours = await ok({ site_id: shop, date_range: range, metrics: ['visits'], dimensions: ['event:action'] });
  assert.deepEqual(ours.results, [{ dimensions: ['outbound.click · partner.example'], metrics: [1] }]);
  assert.deepEqual(ours.meta.notes, [STRICT_ACTIONS_NOTE]);
});
