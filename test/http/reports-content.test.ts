// /v1/reports/content: summary and full payloads against the plain model, content rules 1-6.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { metricsHarness, referenceSites, type MetricsHarness } from './metrics-harness.js';
import {
  MODES,
  countBy,
  dayWindow,
  events,
  latestTitles,
  ratio,
  stored,
  visitors,
  within,
  type SiteMode,
} from '../unit/reports/reference.js';

let h: MetricsHarness;
let sites: Record<string, string>;
before(async () => {
  h = await metricsHarness();
  sites = await referenceSites(h);
});
after(async () => h?.close());

function expected(mode: SiteMode, from: string, to: string, include: 'summary' | 'full', limit = 200) {
  const all = stored(mode);
  const w = dayWindow(from, to);
  const sess = all.filter((s) => within(s.start, w));
  const evs = events(all).filter((e) => within(e.ts, w));
  const pvs = evs.filter((e) => e.type === 'pageview');
  const totals = { pageviews: pvs.length, visitors: visitors(evs), sessions: sess.length };
  if (include === 'summary') {
    return {
      include,
      totals,
      timeseries: w.days.map((d) => {
        const dw = dayWindow(d, d);
        return {
          date: d,
          pageviews: pvs.filter((e) => within(e.ts, dw)).length,
          visitors: visitors(evs.filter((e) => within(e.ts, dw))),
          sessions: sess.filter((s) => within(s.start, dw)).length,
        };
      }),
    };
  }
  const titles = latestTitles(evs);
  const title = (p: string | null) => (p === null ? null : (titles.get(p) ?? null));
  return {
    include,
    totals,
    pages: countBy(pvs, (e) => e.path)
      .slice(0, limit)
      .map((r) => {
        const mine = pvs.filter((e) => e.path === r.key);
        return {
          path_canon: r.key,
          page_title: title(r.key),
          pageviews: r.n,
          visitors: visitors(mine),
          entries: sess.filter((s) => s.entry === r.key).length,
          exits: sess.filter((s) => s.exit === r.key).length,
          avg_page_eng_time_ms: ratio(
            mine.reduce((n, e) => n + e.eng, 0),
            mine.length,
          ),
          trend: w.days.map((d) => ({ date: d, pageviews: mine.filter((e) => within(e.ts, dayWindow(d, d))).length })),
        };
      }),
    entry_pages: countBy(
      sess.filter((s) => s.entry !== null),
      (s) => s.entry,
    )
      .slice(0, limit)
      .map((r) => ({ path_canon: r.key, page_title: title(r.key), entries: r.n })),
    exit_pages: countBy(
      sess.filter((s) => s.exit !== null),
      (s) => s.exit,
    )
      .slice(0, limit)
      .map((r) => ({ path_canon: r.key, page_title: title(r.key), exits: r.n })),
  };
}

for (const name of ['strict', 'extended', 'switched'] as const) {
  test(`content on a ${name} site: full (omitted, full, details) and summary equal the model`, async () => {
    for (const include of [undefined, 'full', 'details', 'summary'] as const) {
      const q: Record<string, string> = { site_id: sites[name], from: '2025-06-10', to: '2025-06-12', compare: 'prev_period' };
      if (include) q.include = include;
      const res = await h.call('/v1/reports/content', q);
      assert.equal(res.statusCode, 200, res.body);
      const mode = include === 'summary' ? 'summary' : 'full';
      assert.deepEqual(res.json().current, expected(MODES[name], '2025-06-10', '2025-06-12', mode));
      assert.deepEqual(res.json().compare, expected(MODES[name], '2025-06-07', '2025-06-09', mode));
      assert.equal(res.json().availability.classification, 'strict_safe');
      assert.equal(res.json().meta.units_charged, mode === 'summary' ? 2 * 1 * 2 : 6 * 1 * 2 * 2);
    }
  });
}

test('content: full limit cuts pages, entry and exit lists; summary ignores limit (payload and units)', async () => {
  const base = { site_id: sites.extended, from: '2025-06-10', to: '2025-06-12' };
  const full = await h.call('/v1/reports/content', { ...base, include: 'full', limit: 2 });
  assert.deepEqual(full.json().current, expected(MODES.extended, '2025-06-10', '2025-06-12', 'full', 2));
  assert.equal(full.json().meta.units_charged, 6);
  const s1 = await h.call('/v1/reports/content', { ...base, include: 'summary', limit: 1 });
  const s2 = await h.call('/v1/reports/content', { ...base, include: 'summary', limit: 2000 });
  assert.deepEqual(s1.json().current, s2.json().current);
  assert.equal(s1.json().meta.units_charged, 2);
  assert.equal(s2.json().meta.units_charged, 2);
});

test('content rules: omitted include is full up to 90 days and summary from 91; summary is dense with sum = totals', async () => {
  const d90 = await h.call('/v1/reports/content', { site_id: sites.extended, from: '2025-03-18', to: '2025-06-15' });
  assert.equal(d90.json().current.include, 'full');
  const d91 = await h.call('/v1/reports/content', { site_id: sites.extended, from: '2025-03-17', to: '2025-06-15' });
  assert.equal(d91.statusCode, 200, d91.body);
  const cur = d91.json().current;
  assert.equal(cur.include, 'summary');
  assert.equal(cur.timeseries.length, 91);
  assert.equal(
    cur.timeseries.reduce((n: number, p: { pageviews: number }) => n + p.pageviews, 0),
    cur.totals.pageviews,
  );
  assert.deepEqual(cur, expected(MODES.extended, '2025-03-17', '2025-06-15', 'summary'));
  assert.equal(d91.json().meta.units_charged, 2 * 4);
});

test('content errors: 422 for full over 90 days, summary over 365, compare over 30, bad include; over the response budget 422 that costs nothing', async () => {
  const cases: Record<string, string>[] = [
    { include: 'full', from: '2025-03-17', to: '2025-06-15' },
    { include: 'details', from: '2025-03-17', to: '2025-06-15' },
    { include: 'summary', from: '2024-06-14', to: '2025-06-15' },
    { from: '2024-06-14', to: '2025-06-15' },
    { include: 'summary', from: '2025-05-01', to: '2025-06-15', compare: 'prev_period' },
    { include: 'everything' },
  ];
  for (const c of cases) {
    const res = await h.call('/v1/reports/content', { site_id: sites.extended, ...c });
    assert.equal(res.statusCode, 422, JSON.stringify(c));
    assert.equal(res.json().error.code, 'INVALID_PARAMS');
  }
  const analytics = h.container.analytics!;
  const before = (await h.call('/v1/usage/current', {})).json().units_used;
  analytics.maxResponseBytes = 1500;
  try {
    const res = await h.call('/v1/reports/content', { site_id: sites.extended, from: '2025-06-01', to: '2025-06-12', include: 'full' });
    assert.equal(res.statusCode, 422);
    const err = res.json().error;
    assert.equal(err.code, 'REPORT_RESPONSE_TOO_LARGE');
    assert.equal(err.details.include, 'full');
    assert.equal(err.details.range_days, 12);
    assert.ok(err.details.measured_bytes > 1500);
  } finally {
    delete analytics.maxResponseBytes;
  }
  assert.equal((await h.call('/v1/usage/current', {})).json().units_used, before, 'a rejected response costs nothing');
  assert.equal((await h.call('/v1/reports/content', { site_id: 'site_nope' })).statusCode, 403);
});
