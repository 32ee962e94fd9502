// /v1/goals/conversions: goal matching (docs/product.md §8.5) against a plain matcher over the fixture,
// the extended-only rules (409 on strict or before any extended data, partial window after the switch).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { metricsHarness, type MetricsHarness } from './metrics-harness.js';
import {
  EFFECTIVE_AT,
  MODES,
  dayWindow,
  events,
  linesFor,
  sectionWindow,
  stored,
  within,
  type REvent,
  type SiteMode,
} from '../unit/reports/reference.js';
import type { GoalFilters, GoalType } from '../../src/ports/catalog-store.js';

const GOALS: { type: GoalType; pattern: string; filters?: GoalFilters }[] = [
  { type: 'PAGEVIEW_MATCH', pattern: '/pricing' },
  { type: 'PAGEVIEW_MATCH', pattern: '/blog/*' },
  { type: 'PAGEVIEW_MATCH', pattern: '*' },
  { type: 'PAGEVIEW_MATCH', pattern: '*/*' },
  { type: 'PAGEVIEW_MATCH', pattern: '/Pricing' },
  { type: 'PAGEVIEW_MATCH', pattern: '/pric_ng' },
  { type: 'PAGEVIEW_MATCH', pattern: '/do%' },
  { type: 'PAGEVIEW_MATCH', pattern: '/doc' },
  { type: 'EVENT_MATCH', pattern: 'signup_done' },
  { type: 'EVENT_MATCH', pattern: 'form.submit', filters: { form_id: 'buy' } },
  { type: 'EVENT_MATCH', pattern: 'form.submit' },
  { type: 'EVENT_MATCH', pattern: 'outbound.click', filters: { action_target_host: 'partner.example' } },
  { type: 'EVENT_MATCH', pattern: 'outbound.click', filters: { action_target_host: 'other.example' } },
  { type: 'EVENT_MATCH', pattern: 'order' },
  { type: 'EVENT_MATCH', pattern: '/pricing' },
];

let h: MetricsHarness;
const sites: Record<string, string> = {};
const goalIds: Record<string, string[]> = {};
const listed: Record<string, string[]> = {};
before(async () => {
  h = await metricsHarness();
  sites.strict = await h.site({ profile: 'strict' });
  sites.extended = await h.site({ profile: 'extended' });
  sites.switched = await h.site({ profile: 'extended', effectiveAt: EFFECTIVE_AT });
  for (const [name, s] of Object.entries(sites)) {
    await h.importEvents(linesFor(s));
    goalIds[name] = [];
    for (const [i, g] of GOALS.entries()) {
      const goal = await h.catalog.createGoal({ siteId: s, name: `g${i}`, intent: 'custom', ...g, filters: g.filters ?? {} });
      goalIds[name].push(goal.id);
    }
    listed[name] = (await h.call('/v1/goals', { site_id: s })).json().items.map((g: { goalId: string }) => g.goalId);
  }
});
after(async () => h?.close());

function matches(g: (typeof GOALS)[number], e: REvent): boolean {
  if (g.type === 'PAGEVIEW_MATCH') {
    if (e.type !== 'pageview' || e.path === null) return false;
    const re = new RegExp(
      '^' +
        g.pattern
          .split('*')
          .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('.*') +
        '$',
      's',
    );
    return re.test(e.path);
  }
  if (e.type !== 'action') return false;
  const a = e.action!;
  if (a.event_name !== g.pattern && a.name !== g.pattern) return false;
  return Object.entries(g.filters ?? {}).every(([k, v]) => (a as unknown as Record<string, unknown>)[k] === v);
}

/** Expected rows in the order GET /v1/goals lists the goals (the catalog's order). */
function expected(mode: SiteMode, from: string, to: string, ids: string[]) {
  const rows = expectedByCreation(mode, from, to, ids).goals;
  return {
    goals: listed[ids === goalIds.extended ? 'extended' : ids === goalIds.switched ? 'switched' : 'strict'].map(
      (id) => rows.find((r) => r.goal_id === id)!,
    ),
  };
}

function expectedByCreation(mode: SiteMode, from: string, to: string, ids: string[]) {
  const all = stored(mode);
  const cw = sectionWindow(mode, dayWindow(from, to));
  const evs = events(all).filter((e) => within(e.ts, cw));
  const total = all.filter((s) => within(s.start, cw)).length;
  return {
    goals: GOALS.map((g, i) => {
      const m = evs.filter((e) => matches(g, e));
      const last = m.length ? Math.max(...m.map((e) => e.ts)) : null;
      return {
        goal_id: ids[i],
        conversions: m.length,
        unique_sessions: new Set(m.map((e) => e.session)).size,
        total_sessions: total,
        last_seen_at: last === null ? null : new Date(last).toISOString(),
      };
    }),
  };
}

test('conversions on an extended site equal the plain matcher, current and compare', async () => {
  const res = await h.call('/v1/goals/conversions', {
    site_id: sites.extended,
    from: '2025-06-10',
    to: '2025-06-12',
    compare: 'prev_period',
  });
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  assert.deepEqual(body.current, expected(MODES.extended, '2025-06-10', '2025-06-12', goalIds.extended));
  assert.deepEqual(body.compare, expected(MODES.extended, '2025-06-07', '2025-06-09', goalIds.extended));
  const conv = goalIds.extended.map((id) => body.current.goals.find((g: { goal_id: string }) => g.goal_id === id).conversions);
  assert.deepEqual(conv.slice(0, 8), [3, 2, 12, 12, 0, 0, 0, 0], 'exact, *, case-sensitive, LIKE metacharacters literal');
  assert.equal(body.availability.classification, 'extended_only');
  assert.equal(body.meta.units_charged, 4 * 1 * 2 * 2);
});

test('conversions on a site that switched inside the range count from effective_at (partial window)', async () => {
  const res = await h.call('/v1/goals/conversions', {
    site_id: sites.switched,
    from: '2025-06-10',
    to: '2025-06-12',
    compare: 'prev_period',
  });
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  assert.equal(body.availability.current.status, 'partially_available_after_effective_at');
  assert.equal(body.availability.current.compatibleStart, EFFECTIVE_AT);
  assert.equal(body.availability.compare.status, 'not_available_for_requested_period');
  assert.deepEqual(body.current, expected(MODES.switched, '2025-06-10', '2025-06-12', goalIds.switched));
  assert.ok(
    body.current.goals[0].total_sessions <
      expectedByCreation(MODES.extended, '2025-06-10', '2025-06-12', goalIds.switched).goals[0].total_sessions,
  );
  assert.deepEqual(body.compare, expected(MODES.switched, '2025-06-07', '2025-06-09', goalIds.switched));
  assert.ok(body.compare.goals.every((g: { conversions: number; last_seen_at: null }) => g.conversions === 0 && g.last_seen_at === null));
});

test('conversions: 409 on a strict site and for a period wholly before the switch; nothing charged', async () => {
  const before = (await h.call('/v1/usage/current', {})).json().units_used;
  const locked = await h.call('/v1/goals/conversions', { site_id: sites.strict, from: '2025-06-10', to: '2025-06-12' });
  assert.equal(locked.statusCode, 409);
  assert.equal(locked.json().error.code, 'REPORT_LOCKED_BY_PROFILE');
  assert.equal(locked.json().error.details.availability.route, 'goals');
  const early = await h.call('/v1/goals/conversions', { site_id: sites.switched, from: '2025-06-07', to: '2025-06-10' });
  assert.equal(early.statusCode, 409);
  assert.equal(early.json().error.code, 'REPORT_NOT_AVAILABLE_FOR_REQUESTED_PERIOD');
  assert.equal((await h.call('/v1/usage/current', {})).json().units_used, before);
});

test('conversions: errors 422, 403 (starter plan, foreign site), 401', async () => {
  assert.equal((await h.call('/v1/goals/conversions', { site_id: sites.extended, limit: 0 })).statusCode, 422);
  // a `from` after today (a later `to` alone means up to now: first-requests.test.ts)
  assert.equal((await h.call('/v1/goals/conversions', { site_id: sites.extended, from: '2025-07-01' })).statusCode, 422);
  const starter = await h.workspace('starter');
  const st = await h.newToken({ workspaceId: starter.id });
  assert.equal((await h.call('/v1/goals/conversions', { site_id: sites.extended }, { token: st })).statusCode, 403);
  assert.equal((await h.call('/v1/goals/conversions', { site_id: 'site_nope' })).statusCode, 403);
  assert.equal((await h.get(`/v1/goals/conversions?site_id=${sites.extended}`)).statusCode, 401);
});
