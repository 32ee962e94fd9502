// The actions-rollup planner alone (pure): which reads the rollup answers exactly, from which rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planActions } from '../../src/engines/sql/read/actions-plan.js';
import type { ActionSelection } from '../../src/ports/analytics-engine.js';

const DAY = 86_400_000;
const D0 = Date.UTC(2025, 2, 1);
const days = (from: number, n: number) => ({ startMs: D0 + from * DAY, endMs: D0 + (from + n) * DAY - 1 });
const base: ActionSelection = { scope: { siteId: 's', tenantIds: null, trafficClasses: ['human'] }, window: days(0, 3), advanced: null };
const action = {
  family: 'forms',
  action_name: 'form.submit',
  event_name: null,
  action_id: null,
  action_target_host: null,
  form_id: 'f',
  form_action_path: null,
} as const;

const plan = (sel: Partial<ActionSelection>, groupBy: Parameters<typeof planActions>[1] = ['action']) => {
  const d = planActions({ ...base, ...sel }, groupBy);
  if (d.use !== 'rollup') throw new Error(`scan: ${d.reason}`);
  return d.plan;
};
const reason = (sel: Partial<ActionSelection>, groupBy: Parameters<typeof planActions>[1] = ['action']) => {
  const d = planActions({ ...base, ...sel }, groupBy);
  return d.use === 'scan' ? d.reason : null;
};

test('whole days read the rollup: days, traffic filter, tenants', () => {
  const p = plan({ scope: { siteId: 's', tenantIds: ['t1'], trafficClasses: ['ai_agent', 'human'] } });
  assert.deepEqual(p, {
    siteId: 's',
    firstDayMs: D0,
    lastDayMs: D0 + 2 * DAY,
    traffic: 'humans_including_ai',
    tenantIds: ['t1'],
    allDays: null,
    grp: 'action',
    dim: '',
  });
  assert.deepEqual(plan({ scope: { ...base.scope, tenantIds: [] } }).tenantIds, []);
});

test('the grouping read follows the keys and filters', () => {
  assert.deepEqual([plan({}, ['action', 'page']).grp, plan({}, ['action', 'page']).dim], ['action', 'page']);
  assert.deepEqual([plan({}, ['day', 'family']).grp, plan({}, ['day', 'family']).dim], ['family', '']);
  assert.deepEqual([plan({ family: 'forms' }, ['browser']).grp, plan({ family: 'forms' }, ['browser']).dim], ['family', 'browser']);
  assert.deepEqual([plan({ action }, ['channel']).grp, plan({ action }, ['channel']).dim], ['action', 'channel']);
  assert.deepEqual([plan({ action, family: 'forms' }, ['day', 'family']).grp], ['action']);
  assert.deepEqual([plan({}, ['country']).grp, plan({}, ['country']).dim], ['any', 'country']);
  assert.equal(plan({}, 'totals').grp, 'any');
});

test('advanced: whole days clipped to the window, or nothing inside it', () => {
  assert.deepEqual(plan({ advanced: days(1, 1) }).allDays, { firstDayMs: D0 + DAY, lastDayMs: D0 + DAY });
  assert.deepEqual(plan({ advanced: days(-5, 20) }).allDays, { firstDayMs: D0, lastDayMs: D0 + 2 * DAY });
  assert.equal(plan({ advanced: days(7, 2) }).allDays, null);
  // starts mid-day before the window: the part inside is whole days
  assert.deepEqual(plan({ advanced: { startMs: D0 - 5 * 3_600_000, endMs: D0 + DAY - 1 } }).allDays, { firstDayMs: D0, lastDayMs: D0 });
  // empty (ends before it starts)
  assert.equal(plan({ advanced: { startMs: D0 + DAY, endMs: D0 } }).allDays, null);
});

test('what the rollup cannot answer exactly scans the events', () => {
  assert.match(reason({ window: { startMs: D0 + 3_600_000, endMs: D0 + DAY - 1 } })!, /window/);
  assert.match(reason({ window: { startMs: D0, endMs: D0 + DAY - 2 } })!, /window/);
  assert.match(reason({ advanced: { startMs: D0 + 12 * 3_600_000, endMs: D0 + 3 * DAY - 1 } })!, /advanced/);
  assert.match(reason({ advanced: { startMs: D0, endMs: D0 + DAY + 5 } })!, /advanced/);
  assert.match(reason({ scope: { ...base.scope, trafficClasses: ['human', 'bot'] } })!, /traffic/);
  assert.match(reason({ scope: { ...base.scope, trafficClasses: [] } })!, /traffic/);
  assert.match(reason({}, ['page', 'channel'])!, /not stored together/);
  assert.match(reason({ family: 'errors' }, 'totals')!, /totals/);
  assert.match(reason({ action }, 'totals')!, /totals/);
});
