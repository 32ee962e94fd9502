// /v1/reports/actions against the plain model of the fixture, on strict, extended, switched-to-extended
// and switched-to-strict sites (a strict site reads only simple actions, even those collected before).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { metricsHarness, referenceSites, type MetricsHarness } from './metrics-harness.js';
import {
  EFFECTIVE_AT,
  MODES,
  cp,
  dayWindow,
  events,
  sectionWindow,
  stored,
  within,
  type REvent,
  type SiteMode,
} from '../unit/reports/reference.js';

const FAMILIES = ['goals', 'forms', 'outbound', 'downloads', 'errors', 'custom', 'instrumentation'];
const SIMPLE = ['ui.click', 'outbound.click', 'file.download', 'form.submit'];
const ALL_MODES: Record<string, SiteMode> = { ...MODES, toStrict: { profile: 'strict', effectiveAtMs: Date.parse(EFFECTIVE_AT) } };

let h: MetricsHarness;
let sites: Record<string, string>;
before(async () => {
  h = await metricsHarness();
  sites = await referenceSites(h, ALL_MODES);
});
after(async () => h?.close());

function keyOf(e: REvent): string {
  const a = e.action!;
  let k = `${e.family}/${encodeURIComponent(a.name)}`;
  for (const attr of ['event_name', 'action_id', 'action_target_host', 'form_id', 'form_action_path'] as const) {
    if (a[attr] !== undefined) k += `;${attr}=${encodeURIComponent(a[attr]!)}`;
  }
  return k;
}

/** label -> distinct sessions, sorted by sessions desc then label */
function sessionsBy(evs: REvent[], f: (e: REvent) => string | null) {
  const m = new Map<string | null, Set<unknown>>();
  for (const e of evs) {
    if (!m.has(f(e))) m.set(f(e), new Set());
    m.get(f(e))!.add(e.session);
  }
  return [...m].map(([label, s]) => ({ label, sessions: s.size })).sort((a, b) => b.sessions - a.sessions || cp(a.label, b.label));
}

function expected(mode: SiteMode, from: string, to: string, o: { limit: number; family?: string; key?: string }) {
  const all = stored(mode);
  const w = dayWindow(from, to);
  const adv = sectionWindow(mode, w);
  const eligible = events(all).filter(
    (e) => e.type === 'action' && within(e.ts, w) && (SIMPLE.includes(e.action!.name) || within(e.ts, adv)),
  );
  const sel = eligible.filter((e) => (!o.family || e.family === o.family) && (!o.key || keyOf(e) === o.key));
  const totals = (evs: REvent[], sessions: number) => {
    const m = evs.filter((e) => ['goals', 'forms', 'outbound', 'downloads', 'custom'].includes(e.family!));
    return {
      total_sessions: sessions,
      meaningful_action_sessions: new Set(m.map((e) => e.session)).size,
      meaningful_occurrences: m.length,
      error_sessions: new Set(evs.filter((e) => e.family === 'errors').map((e) => e.session)).size,
      instrumentation_sessions: new Set(evs.filter((e) => e.family === 'instrumentation').map((e) => e.session)).size,
    };
  };
  const fam = (evs: REvent[]) =>
    sessionsBy(evs, (e) => e.family).map((r) => ({
      family: r.label!,
      sessions: r.sessions,
      occurrences: evs.filter((e) => e.family === r.label).length,
    }));
  const selFamilies = FAMILIES.filter((f) => sel.some((e) => e.family === f));
  const keys = sessionsBy(sel, keyOf).map((r) => {
    const mine = sel.filter((e) => keyOf(e) === r.label);
    const a = mine[0].action!;
    const pages = new Map<string, number>();
    for (const e of mine) if (e.path !== null) pages.set(e.path, (pages.get(e.path) ?? 0) + 1);
    const topPage = [...pages].sort((x, y) => y[1] - x[1] || cp(x[0], y[0]))[0]?.[0] ?? null;
    return {
      action_key: r.label!,
      action_name: a.name,
      event_name: a.event_name ?? null,
      family: mine[0].family!,
      action_id: a.action_id ?? null,
      action_target_host: a.action_target_host ?? null,
      form_id: a.form_id ?? null,
      form_action_path: a.form_action_path ?? null,
      sessions: r.sessions,
      occurrences: mine.length,
      top_page: topPage,
      top_source: sessionsBy(mine, (e) => e.session.channel)[0].label,
    };
  });
  const scope = o.key ? 'action' : 'family';
  const seg = (kind: string, f: (e: REvent) => string | null) =>
    sessionsBy(
      sel.filter((e) => f(e) !== null),
      f,
    )
      .slice(0, o.limit)
      .map((r) => ({ scope, kind, label: r.label, sessions: r.sessions }));
  return {
    goals_configured: false,
    active_family: o.family ?? (o.key ? o.key.split('/')[0] : null),
    totals: totals(eligible, all.filter((s) => within(s.start, w)).length),
    families: fam(eligible),
    timeseries: w.days.map((d) => {
      const dw = dayWindow(d, d);
      return {
        date: d,
        ...totals(
          eligible.filter((e) => within(e.ts, dw)),
          all.filter((s) => within(s.start, dw)).length,
        ),
      };
    }),
    family_timeseries: w.days.flatMap((d) =>
      selFamilies.map((f) => {
        const evs = sel.filter((e) => e.family === f && within(e.ts, dayWindow(d, d)));
        return { date: d, family: f, sessions: new Set(evs.map((e) => e.session)).size, occurrences: evs.length };
      }),
    ),
    actions: keys.slice(0, o.limit),
    context: {
      pages: sessionsBy(sel, (e) => e.path)
        .slice(0, o.limit)
        .map((r) => ({ scope, path_canon: r.label, sessions: r.sessions })),
      sources: sessionsBy(sel, (e) => e.session.channel)
        .slice(0, o.limit)
        .map((r) => ({ scope, channel: r.label, sessions: r.sessions })),
      segments: [
        ...seg('device', (e) => e.session.fx.device ?? null),
        ...seg('country', (e) => e.session.country),
        ...seg('browser', (e) => e.session.fx.browser ?? null),
      ],
    },
  };
}

for (const name of ['strict', 'extended', 'switched', 'toStrict'] as const) {
  test(`actions on a ${name} site: every member equals the model, current and compare`, async () => {
    const res = await h.call('/v1/reports/actions', { site_id: sites[name], from: '2025-06-10', to: '2025-06-12', compare: 'prev_period' });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(body.current, expected(ALL_MODES[name], '2025-06-10', '2025-06-12', { limit: 200 }));
    assert.deepEqual(body.compare, expected(ALL_MODES[name], '2025-06-07', '2025-06-09', { limit: 200 }));
    if (name === 'strict' || name === 'toStrict') {
      assert.ok(body.current.actions.every((a: { action_name: string }) => SIMPLE.includes(a.action_name)));
      assert.equal(body.availability.sections[0].current.status, 'locked_by_profile');
    } else {
      assert.ok(body.current.actions.some((a: { family: string }) => a.family === 'goals' || a.family === 'custom'));
    }
  });
}

test('actions: action_family and action_key narrow actions, family series and context; limit cuts', async () => {
  for (const o of [
    { family: 'outbound' },
    { key: 'outbound/outbound.click;action_target_host=partner.example' },
    { family: 'instrumentation', limit: 1 },
    { key: 'forms/form.submit;form_id=f1;form_action_path=%2Fsubscribe' },
  ]) {
    const q: Record<string, string | number> = { site_id: sites.extended, from: '2025-06-10', to: '2025-06-12' };
    if ('family' in o) q.action_family = o.family!;
    if ('key' in o) q.action_key = o.key!;
    if ('limit' in o) q.limit = o.limit!;
    const res = await h.call('/v1/reports/actions', q);
    assert.equal(res.statusCode, 200, res.body);
    const exp = expected(MODES.extended, '2025-06-10', '2025-06-12', { limit: 200, ...o });
    assert.deepEqual(res.json().current, exp);
    assert.ok(exp.actions.length > 0, 'the filter selects something');
  }
});

test('actions: errors 422 (bad family, malformed key, limit), 403, 401', async () => {
  for (const q of [
    { action_family: 'nope' },
    { action_key: 'nofamily' },
    { action_key: 'bogus/x' },
    { action_key: 'custom/x;zzz=1' },
    { limit: 5000 },
  ] as Record<string, string | number>[]) {
    const res = await h.call('/v1/reports/actions', { site_id: sites.extended, ...q });
    assert.equal(res.statusCode, 422, JSON.stringify(q));
    assert.equal(res.json().error.code, 'INVALID_PARAMS');
  }
  assert.equal((await h.call('/v1/reports/actions', { site_id: 'site_nope' })).statusCode, 403);
  assert.equal((await h.get(`/v1/reports/actions?site_id=${sites.extended}`)).statusCode, 401);
});
