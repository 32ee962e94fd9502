// /v1/reports/overview against a plain model of the fixture (test/unit/reports/reference.ts),
// on a strict site, an extended site and a site that switched to extended inside the range.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { metricsHarness, referenceSites, type MetricsHarness } from './metrics-harness.js';
import {
  MODES,
  cp,
  countBy,
  dayWindow,
  events,
  latestTitles,
  ratio,
  sectionWindow,
  stored,
  visitors,
  within,
  type RSession,
  type SiteMode,
} from '../unit/reports/reference.js';

const FROM = '2025-06-10';
const TO = '2025-06-12';
let h: MetricsHarness;
let sites: Record<string, string>;

before(async () => {
  h = await metricsHarness();
  sites = await referenceSites(h);
  // a bot pageview after every human event: data_health reads the newest event of any traffic class
  await h.importEvents([
    { ts: '2025-06-13T07:00:00Z', type: 'pageview', site_id: sites.extended, path: '/x', visitor_key: 'bot', traffic_class: 'bot' },
  ]);
});
after(async () => h?.close());

function expectedOverview(mode: SiteMode, from: string, to: string, limit: number, lastEventAt: string) {
  const all = stored(mode);
  const w = dayWindow(from, to);
  const span = w.days.length;
  const prevW = { startMs: w.startMs - span * 86_400_000, endMs: w.startMs - 1 };
  const sess = all.filter((s) => within(s.start, w));
  const evs = events(all).filter((e) => within(e.ts, w));
  const pvs = evs.filter((e) => e.type === 'pageview');
  const stats = (ss: RSession[], es: typeof evs) => {
    const p = es.filter((e) => e.type === 'pageview');
    return {
      pageviews: p.length,
      sessions: ss.length,
      visitors: visitors(es),
      bounce_rate: ratio(ss.filter((s) => s.bounce).length, ss.length),
      engagement_rate: ratio(ss.filter((s) => s.engaged).length, ss.length),
      avg_session_eng_time_ms: ratio(
        ss.reduce((n, s) => n + s.eng, 0),
        ss.length,
      ),
      avg_page_eng_time_ms: ratio(
        p.reduce((n, e) => n + e.eng, 0),
        p.length,
      ),
    };
  };
  const t = stats(sess, evs);
  const titles = latestTitles(evs);
  const title = (p: string | null) => (p === null ? null : (titles.get(p) ?? null));
  // movers
  const cur = countBy(pvs, (e) => e.path);
  const prev = countBy(
    events(all).filter((e) => e.type === 'pageview' && within(e.ts, prevW)),
    (e) => e.path,
  );
  const paths = new Set([...cur, ...prev].map((r) => r.key));
  const moverTitles = latestTitles(events(all).filter((e) => within(e.ts, { startMs: prevW.startMs, endMs: w.endMs })));
  const movers = [...paths].map((p) => {
    const c = cur.find((r) => r.key === p)?.n ?? 0;
    const q = prev.find((r) => r.key === p)?.n ?? 0;
    return {
      path_canon: p,
      page_title: moverTitles.get(p!) ?? null,
      current_pageviews: c,
      previous_pageviews: q,
      delta: c - q,
      delta_pct: q === 0 ? 100 : ((c - q) / q) * 100,
    };
  });
  const referrers = countBy(
    sess.filter((s) => s.referrer !== null),
    (s) => s.referrer,
  );
  const landing = countBy(
    sess.filter((s) => s.entry !== null),
    (s) => `${s.entry}\u0000${s.channel}`,
  )
    .map((r) => ({ path: r.key!.split('\u0000')[0], channel: r.key!.split('\u0000')[1], n: r.n }))
    .sort((a, b) => b.n - a.n || cp(a.path, b.path) || cp(a.channel, b.channel));
  const geo = (field: 'region' | 'city') => {
    const sw = sectionWindow(mode, w);
    const ss = all.filter((s) => within(s.start, sw) && s[field] !== null && s.country !== null);
    return countBy(ss, (s) => `${s[field]}\u0000${s.country}`)
      .map((r) => ({ name: r.key!.split('\u0000')[0], country: r.key!.split('\u0000')[1], n: r.n }))
      .sort((a, b) => b.n - a.n || cp(a.name, b.name) || cp(a.country, b.country))
      .slice(0, limit);
  };
  const attr = (f: (s: RSession) => string | null) =>
    countBy(
      sess.filter((s) => f(s) !== null),
      f,
    ).slice(0, limit);
  return {
    overview: {
      totals: {
        pageviews: t.pageviews,
        sessions: t.sessions,
        visitors: t.visitors,
        avg_pages_per_session: ratio(t.pageviews, t.sessions),
        bounce_rate: t.bounce_rate,
        engagement_rate: t.engagement_rate,
        avg_session_eng_time_ms: t.avg_session_eng_time_ms,
        avg_page_eng_time_ms: t.avg_page_eng_time_ms,
      },
      timeseries: w.days.map((d) => {
        const dw = dayWindow(d, d);
        return {
          date: d,
          ...stats(
            sess.filter((s) => within(s.start, dw)),
            evs.filter((e) => within(e.ts, dw)),
          ),
        };
      }),
      visitors_mode: 'daily_uniques',
    },
    content: {
      top_pages: cur.slice(0, limit).map((r) => ({ path_canon: r.key, page_title: title(r.key), pageviews: r.n })),
      movers: {
        top_gainers: movers
          .filter((m) => m.delta > 0)
          .sort((a, b) => b.delta - a.delta || cp(a.path_canon, b.path_canon))
          .slice(0, limit),
        top_losers: movers
          .filter((m) => m.delta < 0)
          .sort((a, b) => a.delta - b.delta || cp(a.path_canon, b.path_canon))
          .slice(0, limit),
      },
    },
    acquisition: {
      by_channel: countBy(sess, (s) => s.channel).map((r) => ({ channel: r.key, sessions: r.n })),
      top_referrers: referrers.slice(0, limit).map((r) => {
        const byCh = countBy(
          sess.filter((s) => s.referrer === r.key),
          (s) => s.channel,
        );
        return { domain: r.key, channel: byCh[0].key, sessions: r.n, favicon_url: null };
      }),
      top_landing_pages: landing
        .slice(0, limit)
        .map((l) => ({ path_canon: l.path, channel: l.channel, sessions: l.n, page_title: title(l.path) })),
    },
    audience: {
      countries: attr((s) => s.country).map((r) => ({ country: r.key, sessions: r.n })),
      regions: geo('region').map((r) => ({ region: r.name, country: r.country, sessions: r.n })),
      cities: geo('city').map((r) => ({ city: r.name, country: r.country, sessions: r.n })),
      devices: attr((s) => s.fx.device ?? null).map((r) => ({ device_type: r.key, sessions: r.n })),
      browsers: attr((s) => s.fx.browser ?? null).map((r) => ({ browser_family: r.key, sessions: r.n })),
      os: attr((s) => s.fx.os ?? null).map((r) => ({ os_family: r.key, sessions: r.n })),
    },
    data_health: { last_event_at: lastEventAt },
  };
}

const LAST = { strict: '2025-06-12T20:00:00.000Z', extended: '2025-06-13T07:00:00.000Z', switched: '2025-06-12T20:00:00.000Z' } as const;

for (const name of ['strict', 'extended', 'switched'] as const) {
  test(`overview on a ${name} site: every member equals the model, current and compare`, async () => {
    const res = await h.call('/v1/reports/overview', { site_id: sites[name], from: FROM, to: TO, compare: 'prev_period' });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(body.current, expectedOverview(MODES[name], FROM, TO, 200, LAST[name]));
    assert.deepEqual(body.compare, expectedOverview(MODES[name], '2025-06-07', '2025-06-09', 200, LAST[name]));
    // sections: locked on strict, partial after effective_at on the switched site
    const regions = body.availability.sections.find((s: { id: string }) => s.id === 'overview_regions');
    const expected = { strict: 'locked_by_profile', extended: 'available', switched: 'partially_available_after_effective_at' }[name];
    assert.equal(regions.current.status, expected);
    assert.deepEqual(body.availability.readModel, { strictSafe: ['overview_core', 'acquisition_lite'], extended: ['overview_geography'] });
    // docs/metering.md: 10 x ceil(3/30) x ceil(200/100) x 2 (compare)
    assert.equal(body.meta.units_charged, 40);
  });
}

test('overview: limit cuts every top list; a strict site still gets the acquisition-lite preview', async () => {
  const res = await h.call('/v1/reports/overview', { site_id: sites.strict, from: FROM, to: TO, limit: 1 });
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  assert.deepEqual(body.current, expectedOverview(MODES.strict, FROM, TO, 1, LAST.strict));
  assert.equal(body.current.acquisition.top_landing_pages.length, 1);
  assert.deepEqual(body.current.audience.regions, []);
  assert.deepEqual(body.current.audience.cities, []);
  assert.ok(body.current.acquisition.top_referrers.length === 1 && body.current.acquisition.by_channel.length > 1);
  assert.equal(body.compare, null);
  assert.equal(body.meta.units_charged, 10);
});

test('overview: errors (422 parameters and limit over the plan, 403 foreign site, 401, 402 at the hard cap)', async () => {
  for (const q of [
    { limit: 0 },
    { limit: 2001 },
    { compare: 'yoy' },
    { from: '2025-02-30' },
    { traffic: 'cats' },
    { bogus: '1' },
  ] as Record<string, string | number>[]) {
    const res = await h.call('/v1/reports/overview', { site_id: sites.extended, ...q });
    assert.equal(res.statusCode, 422, JSON.stringify(q));
    assert.equal(res.json().error.code, 'INVALID_PARAMS');
  }
  const ret = await h.call('/v1/reports/overview', { site_id: sites.extended, from: '2020-01-01', to: '2020-01-02' });
  assert.equal(ret.json().error.code, 'RETENTION_EXCEEDED');
  const other = await h.workspace('pro');
  const foreign = await h.catalog.createSite({
    workspaceId: other.id,
    name: 'x',
    hostnames: ['foreign-ov.example'],
    collectionProfile: 'extended',
    profileEffectiveAt: null,
  });
  assert.equal((await h.call('/v1/reports/overview', { site_id: foreign.id })).statusCode, 403);
  assert.equal((await h.get(`/v1/reports/overview?site_id=${sites.extended}`)).statusCode, 401);
  const starter = await h.workspace('starter');
  const st = await h.newToken({ workspaceId: starter.id });
  assert.equal((await h.call('/v1/reports/overview', { site_id: sites.extended }, { token: st })).statusCode, 403);
  // the plan's max_report_limit (starter 200) bounds limit: an enterprise policy lowering it gives 422
  const small = await h.workspace('enterprise', { max_report_limit: 50 });
  const smallSite = await h.catalog.createSite({
    workspaceId: small.id,
    name: 's',
    hostnames: ['small-ov.example'],
    collectionProfile: 'extended',
    profileEffectiveAt: null,
  });
  const smallToken = await h.newToken({ workspaceId: small.id });
  assert.equal(
    (await h.call('/v1/reports/overview', { site_id: smallSite.id, limit: 51 }, { token: smallToken })).json().error.code,
    'INVALID_PARAMS',
  );
  assert.equal((await h.call('/v1/reports/overview', { site_id: smallSite.id, limit: 50 }, { token: smallToken })).statusCode, 200);
});

test('overview: 402 HARD_CAP_REACHED when the units would pass the cap, and nothing is recorded', async () => {
  const ws = await h.workspace('enterprise', { hard_cap_units: 25, monthly_included_units: 10 });
  const site = await h.catalog.createSite({
    workspaceId: ws.id,
    name: 'c',
    hostnames: ['capped-ov.example'],
    collectionProfile: 'extended',
    profileEffectiveAt: null,
  });
  const token = await h.newToken({ workspaceId: ws.id });
  // 10 x ceil(7/30) x ceil(200/100) = 20 units
  const first = await h.call('/v1/reports/overview', { site_id: site.id }, { token });
  assert.equal(first.statusCode, 200, first.body);
  assert.equal(first.json().meta.units_charged, 20);
  assert.equal(first.json().meta.billable_overage, true);
  const second = await h.call('/v1/reports/overview', { site_id: site.id }, { token });
  assert.equal(second.statusCode, 402);
  assert.equal(second.json().error.code, 'HARD_CAP_REACHED');
  const usage = await h.call('/v1/usage/current', {}, { token });
  assert.equal(usage.json().units_used, 20);
});
