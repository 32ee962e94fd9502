// /v1/reports/acquisition against the plain model of the fixture (test/unit/reports/reference.ts).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { metricsHarness, referenceSites, type MetricsHarness } from './metrics-harness.js';
import {
  CHANNEL_ORDER,
  MODES,
  cp,
  countBy,
  dayWindow,
  events,
  latestTitles,
  ratio,
  sectionWindow,
  stored,
  within,
  type RSession,
  type SiteMode,
} from '../unit/reports/reference.js';

let h: MetricsHarness;
let sites: Record<string, string>;
before(async () => {
  h = await metricsHarness();
  sites = await referenceSites(h);
  await h.catalog.createGoal({
    siteId: sites.extended,
    name: 'g',
    type: 'PAGEVIEW_MATCH',
    intent: 'lead',
    pattern: '/pricing',
    filters: {},
  });
});
after(async () => h?.close());

function expected(mode: SiteMode, from: string, to: string, limit: number, goalsConfigured: boolean) {
  const all = stored(mode);
  const w = dayWindow(from, to);
  const sess = all.filter((s) => within(s.start, w));
  const evs = events(all).filter((e) => within(e.ts, w));
  const stats = (ss: RSession[], pv: number) => ({
    sessions: ss.length,
    pageviews: pv,
    engagement_rate: ratio(ss.filter((s) => s.engaged).length, ss.length),
    avg_session_eng_time_ms: ratio(
      ss.reduce((n, s) => n + s.eng, 0),
      ss.length,
    ),
  });
  const pvIn = (dw: { startMs: number; endMs: number }) => evs.filter((e) => e.type === 'pageview' && within(e.ts, dw)).length;
  const engRows = (ss: RSession[], f: (s: RSession) => string | null, name: string) =>
    countBy(
      ss.filter((s) => f(s) !== null),
      f,
    )
      .slice(0, limit)
      .map((r) => {
        const group = ss.filter((s) => f(s) === r.key);
        return { [name]: r.key, sessions: r.n, engagement_rate: ratio(group.filter((s) => s.engaged).length, group.length) };
      });
  const sw = sectionWindow(mode, w);
  const attributed = all.filter((s) => within(s.start, sw));
  const titles = latestTitles(evs);
  const direct = sess.filter((s) => s.channel === 'Direct').length;
  const tagged = attributed.filter((s) => s.utmAny).length;
  return {
    totals: stats(sess, pvIn(w)),
    by_day: w.days.map((d) => {
      const dw = dayWindow(d, d);
      return {
        date: d,
        ...stats(
          sess.filter((s) => within(s.start, dw)),
          pvIn(dw),
        ),
      };
    }),
    by_channel: countBy(sess, (s) => s.channel).map((r) => ({ channel: r.key, sessions: r.n })),
    top_referrers: engRows(sess, (s) => s.referrer, 'referrer_host'),
    top_sources: engRows(attributed, (s) => s.utm.source, 'source'),
    top_mediums: engRows(attributed, (s) => s.utm.medium, 'medium'),
    top_campaigns: engRows(attributed, (s) => s.utm.campaign, 'campaign'),
    top_landing_pages: countBy(
      sess.filter((s) => s.entry !== null),
      (s) => `${s.entry}\u0000${s.channel}`,
    )
      .map((r) => ({ path: r.key!.split('\u0000')[0], channel: r.key!.split('\u0000')[1], n: r.n }))
      .sort((a, b) => b.n - a.n || cp(a.path, b.path) || cp(a.channel, b.channel))
      .slice(0, limit)
      .map((l) => ({ path_canon: l.path, channel: l.channel, sessions: l.n, page_title: titles.get(l.path) ?? null })),
    coverage: {
      direct_sessions: direct,
      non_direct_sessions: sess.length - direct,
      tagged_sessions: tagged,
      direct_share: ratio(direct, sess.length),
      non_direct_share: ratio(sess.length - direct, sess.length),
      tagged_share: ratio(tagged, sess.length),
    },
    mix_timeseries: w.days.flatMap((d) =>
      CHANNEL_ORDER.map((channel) => ({
        date: d,
        channel,
        sessions: sess.filter((s) => s.channel === channel && within(s.start, dayWindow(d, d))).length,
      })),
    ),
    goals_configured: goalsConfigured,
  };
}

for (const name of ['strict', 'extended', 'switched'] as const) {
  test(`acquisition on a ${name} site: every member equals the model, current and compare`, async () => {
    const res = await h.call('/v1/reports/acquisition', {
      site_id: sites[name],
      from: '2025-06-10',
      to: '2025-06-12',
      compare: 'prev_period',
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    const goals = name === 'extended';
    assert.deepEqual(body.current, expected(MODES[name], '2025-06-10', '2025-06-12', 200, goals));
    assert.deepEqual(body.compare, expected(MODES[name], '2025-06-07', '2025-06-09', 200, goals));
    const section = body.availability.sections.find((s: { id: string }) => s.id === 'acquisition_attribution');
    assert.equal(
      section.current.status,
      { strict: 'locked_by_profile', extended: 'available', switched: 'partially_available_after_effective_at' }[name],
    );
    if (name === 'strict') assert.deepEqual([body.current.top_sources, body.current.top_mediums, body.current.top_campaigns], [[], [], []]);
    else assert.ok(body.current.top_campaigns.length > 0);
    assert.equal(body.meta.units_charged, 8 * 1 * 2 * 2);
  });
}

test('acquisition: limit 1 cuts the lists; errors 422, 403, 401', async () => {
  const res = await h.call('/v1/reports/acquisition', { site_id: sites.extended, from: '2025-06-10', to: '2025-06-12', limit: 1 });
  assert.deepEqual(res.json().current, expected(MODES.extended, '2025-06-10', '2025-06-12', 1, true));
  assert.equal(res.json().meta.units_charged, 8);
  assert.equal((await h.call('/v1/reports/acquisition', { site_id: sites.extended, limit: 'x' })).statusCode, 422);
  assert.equal((await h.call('/v1/reports/acquisition', { site_id: sites.extended, from: '2025-06-20' })).statusCode, 422);
  assert.equal((await h.call('/v1/reports/acquisition', { site_id: 'site_unknown' })).statusCode, 403);
  assert.equal((await h.get(`/v1/reports/acquisition?site_id=${sites.extended}`)).statusCode, 401);
});
