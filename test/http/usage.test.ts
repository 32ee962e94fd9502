import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from './helpers/harness.js';

test('GET /v1/usage/current reports the month, its terms and the reset instant', async () => {
  const h = await harness({ now: '2025-12-31T23:59:59.500Z' });
  const ws = await h.workspace('starter');
  const t = await h.token(ws.id, { scopes: ['usage:read'] });
  const r0 = await h.get('/v1/usage/current', { token: t.secret });
  assert.deepEqual(r0.json(), {
    period: '2025-12',
    units_used: 0,
    units_included: 100_000,
    units_overage: 0,
    hard_cap_units: 250_000,
    reset_at: '2026-01-01T00:00:00.000Z',
  });
  const ledger = h.container.ledger;
  const rsv = await ledger.reserve({ workspaceId: ws.id, period: '2025-12', units: 100_004, included: 100_000, hardCap: 250_000 });
  await ledger.commit(rsv!);
  const r1 = (await h.get('/v1/usage/current', { token: t.secret })).json();
  assert.equal(r1.units_used, 100_004);
  assert.equal(r1.units_overage, 4);
  h.clock.advance(1000); // into January: counters reset
  const r2 = (await h.get('/v1/usage/current', { token: t.secret })).json();
  assert.equal(r2.period, '2026-01');
  assert.equal(r2.units_used, 0);
  assert.equal(r2.reset_at, '2026-02-01T00:00:00.000Z');
  await h.close();
});

test('GET /v1/usage/history: one item per month, clipped to the plan window, zeros for quiet months', async () => {
  const h = await harness({ now: '2023-03-01T00:00:00Z' });
  const ws = await h.workspace('starter'); // older than the window: 12 months, 2024-07 .. 2025-06
  h.clock.set('2025-06-15T12:00:00Z');
  const t = await h.token(ws.id);
  const ledger = h.container.ledger;
  for (const [period, units] of [
    ['2025-03', 40],
    ['2024-01', 7],
  ] as const) {
    const rsv = await ledger.reserve({ workspaceId: ws.id, period, units, included: 90, hardCap: 95 });
    await ledger.commit(rsv!);
  }
  const all = (await h.get('/v1/usage/history', { token: t.secret })).json().items;
  assert.equal(all.length, 12);
  assert.equal(all[0].period, '2024-07');
  assert.equal(all[11].period, '2025-06');
  assert.deepEqual(
    all.find((i: any) => i.period === '2025-03'),
    {
      period: '2025-03',
      units_used: 40,
      units_included: 90,
      units_overage: 0,
      hard_cap_units: 95,
    },
  );
  assert.deepEqual(
    all.find((i: any) => i.period === '2025-04'),
    {
      period: '2025-04',
      units_used: 0,
      units_included: 100_000,
      units_overage: 0,
      hard_cap_units: 250_000,
    },
  );

  const some = (await h.get('/v1/usage/history?from=2023-01-01&to=2025-04-30', { token: t.secret })).json().items;
  assert.deepEqual(
    some.map((i: any) => i.period),
    ['2024-07', '2024-08', '2024-09', '2024-10', '2024-11', '2024-12', '2025-01', '2025-02', '2025-03', '2025-04'],
  );
  const one = (await h.get('/v1/usage/history?from=2025-03-31&to=2025-03-31', { token: t.secret })).json().items;
  assert.deepEqual(
    one.map((i: any) => i.period),
    ['2025-03'],
  );
  const future = (await h.get('/v1/usage/history?from=2026-01-01', { token: t.secret })).json().items;
  assert.deepEqual(future, []);
  await h.close();
});

test('GET /v1/usage/history: 422 for impossible dates and from after to', async () => {
  const h = await harness();
  const ws = await h.workspace('pro');
  const t = await h.token(ws.id, { scopes: ['usage:read'] });
  for (const [q, parameter] of [
    ['from=2025-02-30', 'from'],
    ['to=2025-13-01', 'to'],
    ['from=2025-05-02&to=2025-05-01', 'from'],
    ['to=yesterday', 'to'],
  ]) {
    const r = await h.get(`/v1/usage/history?${q}`, { token: t.secret });
    assert.equal(r.statusCode, 422, q);
    assert.equal(r.json().error.details.parameter, parameter, q);
  }
  await h.close();
});

test('GET /v1/usage/history lists the months since the workspace was created, each with the allowance of its plan then', async () => {
  const h = await harness({ now: '2025-01-20T10:00:00Z' });
  const ws = await h.workspace('starter');
  const t = await h.token(ws.id, { scopes: ['usage:read'] });
  assert.deepEqual((await h.get('/v1/usage/history', { token: t.secret })).json().items, [
    { period: '2025-01', units_used: 0, units_included: 100_000, units_overage: 0, hard_cap_units: 250_000 },
  ]);
  h.clock.set('2025-03-10T08:00:00Z');
  await h.catalog.updateWorkspace(ws.id, { plan: 'pro' });
  h.clock.set('2025-04-05T09:00:00Z');
  await h.catalog.updateWorkspace(ws.id, { plan: 'enterprise', apiPolicy: { monthly_included_units: 7, hard_cap_units: 9 } });
  h.clock.set('2025-06-15T12:00:00Z');
  const items = (await h.get('/v1/usage/history?from=2020-01-01', { token: t.secret })).json().items;
  assert.deepEqual(
    items.map((i: any) => [i.period, i.units_included, i.hard_cap_units]),
    [
      ['2025-01', 100_000, 250_000], // starter, from its creation on (nothing before it)
      ['2025-02', 100_000, 250_000],
      ['2025-03', 1_000_000, 2_000_000], // pro from 03-10: in force at the month's end
      ['2025-04', 7, 9], // enterprise with its own allowance
      ['2025-05', 7, 9],
      ['2025-06', 7, 9],
    ],
  );
  assert.deepEqual(
    (await h.catalog.planHistory(ws.id)).map((p) => [p.effectiveAt, p.plan, p.apiPolicy]),
    [
      ['2025-01-20T10:00:00.000Z', 'starter', {}],
      ['2025-03-10T08:00:00.000Z', 'pro', {}],
      ['2025-04-05T09:00:00.000Z', 'enterprise', { monthly_included_units: 7, hard_cap_units: 9 }],
    ],
  );
  // a change of name only is not a change of plan
  await h.catalog.updateWorkspace(ws.id, { name: 'renamed' });
  assert.equal((await h.catalog.planHistory(ws.id)).length, 3);
  await h.close();
});

test('usage errors: 401, 403 (free plan), 429', async () => {
  const h = await harness();
  for (const path of ['/v1/usage/current', '/v1/usage/history']) {
    assert.equal((await h.get(path)).statusCode, 401);
    const ws = await h.workspace('enterprise', { rate_limit_rps: 1 });
    const t = await h.token(ws.id);
    for (let i = 0; i < 60; i++) await h.get(path, { token: t.secret });
    assert.equal((await h.get(path, { token: t.secret })).statusCode, 429);
    h.setPlan(ws.id, 'free');
    h.clock.advance(60_000);
    assert.equal((await h.get(path, { token: t.secret })).statusCode, 403);
  }
  await h.close();
});
