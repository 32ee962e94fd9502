// What the dashboard shows against what /v1 answers for the same request: the six tiles (total, the
// compare total, or the API's refusal in its own words), every point of the chart, and the rows of the
// tab on show of three top lists (sources, pages, locations: by channel, page and country at first).
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { DashboardWorld } from './dashboard-world.js';

const TILE_METRICS = ['visitors', 'sessions', 'pageviews', 'avg_pages_per_session', 'bounce_rate', 'avg_session_eng_time_ms'];
const LISTS = ['sources', 'pages', 'locations'];

const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

/** The /v1 parameters of a dashboard URL's query (the same names; the default period is the last 30 days). */
export function apiParams(w: DashboardWorld, siteId: string, query: Record<string, string>) {
  return {
    site_id: siteId,
    from: query.from ?? addDays(w.today, -29),
    to: query.to ?? w.today,
    traffic: query.traffic,
    tenant_id: query.tenant_id,
  };
}

interface TileSeen {
  metric: string;
  value: string | null;
  compare: string | null;
  problem: string | null;
}

export async function tilesOf(page: Page): Promise<TileSeen[]> {
  return page.$$eval('.tile', (tiles) =>
    tiles.map((t) => ({
      metric: t.getAttribute('data-metric')!,
      value: t.getAttribute('data-value'),
      compare: t.querySelector('.tile-change')?.getAttribute('data-compare') ?? null,
      problem: t.querySelector('.tile-problem')?.textContent ?? null,
    })),
  );
}

export async function listRows(page: Page, panel: string): Promise<[string, number][]> {
  return page.$$eval(`[data-panel="${panel}"] .rows li`, (items) =>
    items.map((li) => [li.getAttribute('data-key')!, Number(li.getAttribute('data-value'))] as [string, number]),
  );
}

export async function assertTilesMatch(w: DashboardWorld, page: Page, siteId: string, query: Record<string, string>): Promise<void> {
  const base = apiParams(w, siteId, query);
  const tiles = await tilesOf(page);
  assert.deepEqual(
    tiles.map((t) => t.metric),
    TILE_METRICS,
  );
  for (const tile of tiles) {
    const r = await w.v1('/v1/metrics/timeseries', { ...base, metric: tile.metric, compare: query.compare, filters: query.filters });
    const what = `${tile.metric} tile for ${JSON.stringify(query)}`;
    if (r.status !== 200) {
      assert.equal(tile.problem, r.body.error.message, what);
      assert.equal(tile.value, null, `${what}: no number beside a refusal`);
      continue;
    }
    assert.equal(Number(tile.value), r.body.current.total, what);
    assert.equal(tile.compare === null ? null : Number(tile.compare), r.body.compare ? r.body.compare.total : null, `${what}: compare`);
  }
}

export async function assertMatchesV1(w: DashboardWorld, page: Page, siteId: string, query: Record<string, string>): Promise<void> {
  await assertTilesMatch(w, page, siteId, query);
  const base = apiParams(w, siteId, query);
  const series = await w.v1('/v1/metrics/timeseries', {
    ...base,
    metric: query.metric ?? 'visitors',
    interval: query.interval,
    compare: query.compare,
    filters: query.filters,
  });
  assert.equal(series.status, 200, JSON.stringify(series.body));
  const points = await page.$$eval('.chart-table tbody tr', (rows) =>
    rows.map((r) => [
      r.getAttribute('data-start'),
      Number(r.getAttribute('data-value')),
      r.hasAttribute('data-compare') ? Number(r.getAttribute('data-compare')) : null,
    ]),
  );
  assert.ok(points.length > 0, 'the chart has points');
  assert.deepEqual(
    points,
    series.body.current.points.map((p: { start: string; value: number }, i: number) => [
      p.start,
      p.value,
      series.body.compare ? series.body.compare.points[i].value : null,
    ]),
    `chart points for ${JSON.stringify(query)}`,
  );
  for (const panel of LISTS) {
    const dimension = (await page.getAttribute(`[data-panel="${panel}"] .list-body`, 'data-dimension'))!;
    const r = await w.v1('/v1/metrics/breakdown', { ...base, dimension, metric: 'visitors', limit: '100', filters: query.filters });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const want = r.body.current.rows.slice(0, 10).map((row: { key: string | null; value: number }) => [row.key ?? '', row.value]);
    assert.deepEqual(await listRows(page, panel), want, `${panel} (${dimension}) for ${JSON.stringify(query)}`);
  }
}
