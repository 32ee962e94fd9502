// POST /api/v2/funnel through HTTP on a literal data set where order decides: a visit doing step 2
// before step 1 does not reach step 2, equal times do, a step done in another visit of the same
// visitor does not count; a Kathmandu site counts the visits starting on its local days; units are a
// query's with one dimension per step; refusals name their field and cost nothing; tenant-restricted
// and embed tokens read their own tenant only; a saved funnel answers as its steps do. The engines'
// agreement on generated data is test/engines/funnel-engines.test.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { metricsHarness, pv, type MetricsHarness } from './metrics-harness.js';
import { embedKey, mint } from './helpers/embeds.js';

let h: MetricsHarness;
let site: string;
let kathmandu: string;
let tenantA: string;
let tenantB: string;
const DAY = ['2025-06-10', '2025-06-10'];

const act = (
  s: string,
  ts: string,
  visitor: string,
  names: { event_name?: string; action_name?: string },
  over: Record<string, unknown> = {},
) => ({
  ts,
  type: 'action',
  site_id: s,
  visitor_key: visitor,
  path: '/app',
  action_name: names.action_name ?? 'custom.event',
  ...(names.event_name ? { event_name: names.event_name } : {}),
  ...over,
});

before(async () => {
  h = await metricsHarness({ now: '2025-06-20T12:00:00Z' });
  site = await h.site();
  kathmandu = await h.site({ timezone: 'Asia/Kathmandu' });
  tenantA = await h.tenant(site, 'acme');
  tenantB = await h.tenant(site, 'globex');
  const d = (t: string) => `2025-06-10T${t}Z`;
  await h.importEvents([
    // u1: pricing, signup, thanks in order: every step
    pv(site, d('10:00:00'), '/pricing', 'u1'),
    act(site, d('10:05:00'), 'u1', { event_name: 'Signup' }),
    pv(site, d('10:06:00'), '/thanks', 'u1'),
    // u2: signup before pricing: step 1 only
    act(site, d('11:00:00'), 'u2', { event_name: 'Signup' }),
    pv(site, d('11:05:00'), '/pricing', 'u2'),
    // u3: pricing and signup at the same instant: both
    pv(site, d('12:00:00'), '/pricing', 'u3'),
    act(site, d('12:00:00'), 'u3', { event_name: 'Signup' }),
    // u4: pricing in one visit, signup in the next (over 30 minutes later): step 1 only
    pv(site, d('08:00:00'), '/pricing', 'u4'),
    act(site, d('14:00:00'), 'u4', { event_name: 'Signup' }),
    // u5: /pricing/annual (only /pricing* matches), then signup
    pv(site, d('13:00:00'), '/pricing/annual', 'u5'),
    act(site, d('13:01:00'), 'u5', { event_name: 'Signup' }),
    // u6: the event's action_name is the step's name
    pv(site, d('15:00:00'), '/pricing', 'u6'),
    act(site, d('15:01:00'), 'u6', { action_name: 'Signup' }),
    // tenants: A's visitor converts, B's does not
    pv(site, d('16:00:00'), '/pricing', 'ta', { tenant_id: tenantA }),
    act(site, d('16:01:00'), 'ta', { event_name: 'Signup' }, { tenant_id: tenantA }),
    pv(site, d('16:00:00'), '/pricing', 'tb', { tenant_id: tenantB }),
    // Kathmandu is UTC+05:45: 18:14Z is 23:59 on the 1st there; the visit's signup at 00:05 local still counts for the 1st
    pv(kathmandu, '2025-06-01T18:14:00Z', '/pricing', 'k1'),
    act(kathmandu, '2025-06-01T18:20:00Z', 'k1', { event_name: 'Signup' }),
    // 18:16Z is 00:01 on the 2nd
    pv(kathmandu, '2025-06-01T18:16:00Z', '/pricing', 'k2'),
  ]);
});
after(() => h.close());

type Answer = {
  steps: { label: string; visitors: number; conversion_rate: number; dropoff: number; dropoff_rate: number }[];
  meta: Record<string, any>;
  query: Record<string, any>;
};

const funnel = (body: Record<string, unknown>, token = h.secret) => h.post('/api/v2/funnel', body, { token });

async function ok(body: Record<string, unknown>, token?: string): Promise<Answer> {
  const r = await funnel(body, token);
  assert.equal(r.statusCode, 200, r.body);
  return r.json();
}

const visitors = (a: Answer) => a.steps.map((s) => s.visitors);

test('order decides: step 2 before step 1 does not count, equal times do, another visit does not; event_name or action_name', async () => {
  const a = await ok({ site_id: site, date_range: DAY, steps: [{ page: '/pricing' }, { event: 'Signup' }] });
  // step 1: u1 u2 u3 u4 u6 ta tb; step 2: u1 u3 u6 ta
  assert.deepEqual(a.steps, [
    { label: '/pricing', visitors: 7, conversion_rate: 100, dropoff: 0, dropoff_rate: 0 },
    { label: 'Signup', visitors: 4, conversion_rate: 57.1, dropoff: 3, dropoff_rate: 42.9 },
  ]);
  const three = await ok({ site_id: site, date_range: DAY, steps: [{ page: '/pricing*' }, { event: 'Signup' }, { page: '/thanks' }] });
  assert.deepEqual(visitors(three), [8, 5, 1]);
  assert.deepEqual(
    three.steps.map((s) => [s.conversion_rate, s.dropoff, s.dropoff_rate]),
    [
      [100, 0, 0],
      [62.5, 3, 37.5],
      [12.5, 4, 80],
    ],
  );
  assert.deepEqual(three.query.steps, [{ page: '/pricing*' }, { event: 'Signup' }, { page: '/thanks' }]);
  assert.deepEqual(three.query.date_range, ['2025-06-10T00:00:00.000Z', '2025-06-10T23:59:59.999Z']);
  // the reverse order: u2 did signup then pricing, u3 both at once
  assert.deepEqual(visitors(await ok({ site_id: site, date_range: DAY, steps: [{ event: 'Signup' }, { page: '/pricing' }] })), [7, 2]);
});

test('filters: a visit filter chooses the visits, an event filter the events a step may match', async () => {
  const steps = [{ page: '/pricing*' }, { event: 'Signup' }];
  const noAnnual = await ok({ site_id: site, date_range: DAY, steps, filters: [['is_not', 'event:page', ['/pricing/annual']]] });
  assert.deepEqual(visitors(noAnnual), [7, 4]);
  const enteredAnnual = await ok({ site_id: site, date_range: DAY, steps, filters: [['is', 'visit:entry_page', ['/pricing/annual']]] });
  assert.deepEqual(visitors(enteredAnnual), [1, 1]);
});

test('Asia/Kathmandu: the visits starting on the local day, their later steps included', async () => {
  const steps = [{ page: '/pricing' }, { event: 'Signup' }];
  const first = await ok({ site_id: kathmandu, date_range: ['2025-06-01', '2025-06-01'], steps });
  assert.deepEqual(visitors(first), [1, 1]);
  assert.equal(first.meta.timezone, 'Asia/Kathmandu');
  assert.deepEqual(first.query.date_range, ['2025-05-31T18:15:00.000Z', '2025-06-01T18:14:59.999Z']);
  assert.deepEqual(visitors(await ok({ site_id: kathmandu, date_range: ['2025-06-02', '2025-06-02'], steps })), [1, 0]);
});

test('units: a query with one dimension per step, 2 x ceil(days / 30) x (steps + 1)', async () => {
  const units = async (steps: unknown[], date_range: string[]) => (await ok({ site_id: site, date_range, steps })).meta.units_charged;
  assert.equal(await units([{ page: '/pricing' }, { event: 'Signup' }], DAY), 2 * 1 * 3);
  assert.equal(await units([{ page: '/pricing' }, { event: 'Signup' }, { page: '/thanks' }], ['2025-05-01', '2025-06-10']), 2 * 2 * 4);
  const before = await h.container.ledger.used(h.ws.id, '2025-06');
  await ok({ site_id: site, date_range: DAY, steps: [{ page: '/pricing' }, { event: 'Signup' }] });
  assert.equal((await h.container.ledger.used(h.ws.id, '2025-06')) - before, 6, 'the ledger is charged what meta says');
});

test('refusals name the field and say what to send; none is charged', async () => {
  const before = await h.container.ledger.used(h.ws.id, '2025-06');
  const two = [{ page: '/pricing' }, { event: 'Signup' }];
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [{ site_id: site, date_range: DAY }, 'steps', /funnel_id/],
    [{ site_id: site, date_range: DAY, steps: [{ page: '/pricing' }] }, 'steps', /2 to 8 steps/],
    [{ site_id: site, date_range: DAY, steps: Array.from({ length: 9 }, (_, i) => ({ page: `/p${i}` })) }, 'steps', /2 to 8/],
    [{ site_id: site, date_range: DAY, steps: [{ page: '/pricing' }, { pg: '/x' }] }, 'steps[1]', /"page"/],
    [{ site_id: site, date_range: DAY, steps: [{ page: 'pricing' }, { event: 'Signup' }] }, 'steps[0]', /start with "\/"/],
    [{ site_id: site, date_range: DAY, steps: [{ event: 'Signup' }, { event: 'Signup' }] }, 'steps[1]', /repeats/],
    [{ site_id: site, date_range: DAY, steps: [{ page: '/a', event: 'b' }, { event: 'Signup' }] }, 'steps[0]', /each step/],
    [{ site_id: site, date_range: DAY, steps: two, funnel_id: 'funnel_x' }, 'funnel_id', /not both/],
    [{ site_id: site, date_range: DAY, funnel_id: 'funnel_nope' }, 'funnel_id', /no saved funnel/],
    [{ site_id: site, date_range: DAY, steps: two, filters: [['equals', 'event:page', ['/']]] }, 'filters[0][0]', /unknown operator/],
    [{ site_id: site, date_range: DAY, steps: two, metrics: ['visitors'] }, 'metrics', /unknown field/],
    [{ site_id: site, date_range: 'yesterday', steps: two }, 'date_range', /not a known range/],
  ];
  for (const [body, field, message] of cases) {
    const r = await funnel(body);
    assert.equal(r.statusCode, 422, `${JSON.stringify(body)}: ${r.body}`);
    const err = r.json().error;
    assert.equal(err.details.field, field, r.body);
    assert.match(err.message, message, r.body);
  }
  const old = await funnel({ site_id: site, date_range: ['2023-01-01', '2023-01-31'], steps: two });
  assert.equal(old.statusCode, 422, old.body);
  assert.equal(old.json().error.code, 'RETENTION_EXCEEDED');
  assert.equal(await h.container.ledger.used(h.ws.id, '2025-06'), before);
});

test('a tenant-restricted token must name its tenant and counts it only; another tenant is refused', async () => {
  const restricted = await h.newToken({ tenantIds: [tenantA] });
  const steps = [{ page: '/pricing' }, { event: 'Signup' }];
  const none = await funnel({ site_id: site, date_range: DAY, steps }, restricted);
  assert.equal(none.statusCode, 403, none.body);
  assert.deepEqual(visitors(await ok({ site_id: site, date_range: DAY, steps, tenant_id: tenantA }, restricted)), [1, 1]);
  const other = await funnel({ site_id: site, date_range: DAY, steps, tenant_id: tenantB }, restricted);
  assert.equal(other.statusCode, 403, other.body);
  assert.deepEqual(visitors(await ok({ site_id: site, date_range: DAY, steps, tenant_id: tenantB })), [1, 0]);
});

test('an embed token reads its own site and tenant when its routes claim lists funnel; without it the route is refused', async () => {
  const parent = await h.token(h.ws.id);
  const key = await embedKey(h, h.ws.id);
  const steps = [{ page: '/pricing' }, { event: 'Signup' }];
  const sealed = mint(h, key, { token_id: parent.id, site_id: site, tenant_id: tenantA, routes: ['funnel'] });
  // naming neither the site nor the tenant: the token's are read
  assert.deepEqual(visitors(await ok({ date_range: DAY, steps }, sealed)), [1, 1]);
  const widen = await funnel({ date_range: DAY, steps, tenant_id: tenantB }, sealed);
  assert.equal(widen.statusCode, 403, widen.body);
  const queryOnly = mint(h, key, { token_id: parent.id, site_id: site, tenant_id: tenantA, routes: ['query'] });
  const refused = await funnel({ date_range: DAY, steps }, queryOnly);
  assert.equal(refused.statusCode, 403, refused.body);
});

test('a saved funnel answers as its steps do; one of another site is unknown here', async () => {
  const saved = await h.catalog.createFunnel({
    siteId: site,
    name: 'Pricing to signup',
    steps: [
      { kind: 'page', pattern: '/pricing*' },
      { kind: 'event', name: 'Signup' },
      { kind: 'page', pattern: '/thanks' },
    ],
  });
  const byId = await ok({ site_id: site, date_range: DAY, funnel_id: saved.id });
  const bySteps = await ok({ site_id: site, date_range: DAY, steps: [{ page: '/pricing*' }, { event: 'Signup' }, { page: '/thanks' }] });
  assert.deepEqual(byId.steps, bySteps.steps);
  assert.equal(byId.query.funnel_id, saved.id);
  assert.equal(byId.query.name, 'Pricing to signup');
  const elsewhere = await funnel({ site_id: kathmandu, date_range: DAY, funnel_id: saved.id });
  assert.equal(elsewhere.statusCode, 422, elsewhere.body);
  assert.equal(elsewhere.json().error.details.field, 'funnel_id');
});

test("GET /api/v2/funnels lists the site's saved funnels to a token, and to an embed token whose routes hold funnel; another site's are not there", async () => {
  const own = await h.catalog.createFunnel({
    siteId: kathmandu,
    name: 'Docs to signup',
    steps: [
      { kind: 'page', pattern: '/docs*' },
      { kind: 'event', name: 'Signup' },
    ],
  });
  const list = async (siteId: string, token?: string) =>
    h.app.inject({ method: 'GET', url: `/api/v2/funnels?site_id=${siteId}`, headers: { authorization: `Bearer ${token ?? h.secret}` } });
  const res = await list(kathmandu);
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.json().funnels, [
    { funnel_id: own.id, name: 'Docs to signup', steps: [{ page: '/docs*' }, { event: 'Signup' }], updated_at: own.updatedAt },
  ]);
  assert.ok(
    (await list(site)).json().funnels.every((f: { funnel_id: string }) => f.funnel_id !== own.id),
    "another site's funnel is not listed",
  );
  const parent = await h.token(h.ws.id);
  const key = await embedKey(h, h.ws.id);
  const withFunnel = mint(h, key, { token_id: parent.id, site_id: kathmandu, routes: ['funnel'] });
  assert.equal((await list(kathmandu, withFunnel)).json().funnels.length, 1);
  assert.equal((await list(site, withFunnel)).statusCode, 403, 'not its site');
  const queryOnly = mint(h, key, { token_id: parent.id, site_id: kathmandu, routes: ['query'] });
  assert.equal((await list(kathmandu, queryOnly)).statusCode, 403, 'its routes leave funnel out');
});
