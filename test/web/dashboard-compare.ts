// What the dashboard shows against what POST /api/v2/query answers, read with a token of the same
// workspace, for the state in the page's URL: the six tiles (totals, the compared totals, or the API's
// refusal in its own words), every bucket of the chart, and the rows of the tab on show of three top
// lists (sources, pages, locations: by channel, page and country at first). The bodies are written here
// from the URL's meaning, not taken from the page's code, so a page that asked the wrong question fails.
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { DashboardWorld } from './dashboard-world.js';

const TILE_METRICS = ['visitors', 'visits', 'pageviews', 'views_per_visit', 'bounce_rate', 'visit_duration'];
const LISTS = ['sources', 'pages', 'locations'];
/** the query API's names of the dashboard's dimensions */
export const QUERY_DIMENSION: Record<string, string> = {
  page: 'event:page',
  entry_page: 'visit:entry_page',
  exit_page: 'visit:exit_page',
  referrer: 'visit:referrer',
  channel: 'visit:channel',
  source: 'visit:utm_source',
  medium: 'visit:utm_medium',
  campaign: 'visit:utm_campaign',
  country: 'visit:country',
  region: 'visit:region',
  city: 'visit:city',
  device: 'visit:device',
  browser: 'visit:browser',
  os: 'visit:os',
  goal: 'event:goal',
  event: 'event:name',
  action: 'event:action',
};

const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

/** Today where a site counts its days: the extended site's zone, UTC for the others. */
export const todayOf = (w: DashboardWorld, siteId: string) => (siteId === w.sites.extended ? w.localToday : w.today);

/** The filters of a dashboard URL as the query API takes them: [op, dim, value] lists, or the older {dim: value}. */
function queryFilters(raw: string | undefined): unknown[] | undefined {
  if (!raw) return undefined;
  const parsed = JSON.parse(raw) as [string, string, string][] | Record<string, string>;
  const list = Array.isArray(parsed) ? parsed : Object.entries(parsed).map(([d, v]) => ['is', d, v] as [string, string, string]);
  // a custom property's filter names it prop:<key>
  const dim = (d: string) => (d.startsWith('prop:') ? `event:props:${d.slice('prop:'.length)}` : QUERY_DIMENSION[d]);
  return list.map(([op, d, v]) => (op === 'contains' ? [op, dim(d), [v], { case_sensitive: false }] : [op, dim(d), [v]]));
}

/** The compare of a dashboard URL as include.compare. */
function queryCompare(query: Record<string, string>): unknown {
  if (query.compare === 'prev_period') return 'previous_period';
  if (query.compare === 'year_over_year') return 'year_over_year';
  if (query.compare === 'custom') return [query.compare_from, query.compare_to];
  return undefined;
}

/** Site, period (the last 30 days of the site's zone by default), tenant, traffic and filters of a dashboard URL's query. */
export function queryScope(w: DashboardWorld, siteId: string, query: Record<string, string>) {
  const today = todayOf(w, siteId);
  const filters = queryFilters(query.filters);
  return {
    site_id: siteId,
    date_range: [query.from ?? addDays(today, -29), query.to ?? today],
    ...(filters ? { filters } : {}),
    ...(query.tenant_id ? { tenant_id: query.tenant_id } : {}),
    ...(query.traffic ? { traffic: query.traffic } : {}),
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
  const compare = queryCompare(query);
  const r = await w.v2({ ...queryScope(w, siteId, query), metrics: TILE_METRICS, ...(compare ? { include: { compare } } : {}) });
  const tiles = await tilesOf(page);
  assert.deepEqual(
    tiles.map((t) => t.metric),
    TILE_METRICS,
  );
  tiles.forEach((tile, i) => {
    const what = `${tile.metric} tile for ${JSON.stringify(query)}`;
    if (r.status !== 200) {
      assert.equal(tile.problem, r.body.error.message, what);
      assert.equal(tile.value, null, `${what}: no number beside a refusal`);
      return;
    }
    const row = r.body.results[0];
    assert.equal(Number(tile.value), row.metrics[i], what);
    assert.equal(tile.compare === null ? null : Number(tile.compare), compare ? row.comparison.metrics[i] : null, `${what}: compare`);
  });
}

/** The interval the chart uses for a URL without one: one day by the hour (a plan with hours), up to 92 days by the day. */
function intervalOf(query: Record<string, string>, dateRange: string[]): string {
  if (query.interval) return query.interval;
  const days = (Date.parse(`${dateRange[1]}T00:00:00Z`) - Date.parse(`${dateRange[0]}T00:00:00Z`)) / 86_400_000 + 1;
  return days === 1 ? 'hour' : days <= 92 ? 'day' : days <= 183 ? 'week' : 'month';
}

export async function assertMatchesQuery(w: DashboardWorld, page: Page, siteId: string, query: Record<string, string>): Promise<void> {
  await assertTilesMatch(w, page, siteId, query);
  const scope = queryScope(w, siteId, query);
  const compare = queryCompare(query);
  const series = await w.v2({
    ...scope,
    metrics: [query.metric ?? 'visitors'],
    dimensions: [`time:${intervalOf(query, scope.date_range)}`],
    include: { time_labels: true, ...(compare ? { compare } : {}) },
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
  // every labelled bucket, in order; a bucket without a row is zero (in both periods)
  const rows = new Map<string, { metrics: number[]; comparison?: { metrics: number[] } }>(
    series.body.results.map((r: { dimensions: string[] }) => [r.dimensions[0], r]),
  );
  assert.deepEqual(
    points,
    (series.body.meta.time_labels as string[]).map((label) => {
      const row = rows.get(label);
      return [label, row?.metrics[0] ?? 0, compare ? (row?.comparison?.metrics[0] ?? 0) : null];
    }),
    `chart points for ${JSON.stringify(query)}`,
  );
  assert.equal(await page.getAttribute('.chart-panel .plot', 'data-zone'), series.body.meta.timezone, "the chart names the site's zone");
  for (const panel of LISTS) {
    const dimension = (await page.getAttribute(`[data-panel="${panel}"] .list-body`, 'data-dimension'))!;
    const r = await w.v2({ ...scope, metrics: ['visitors'], dimensions: [QUERY_DIMENSION[dimension]], pagination: { limit: 100 } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const want = r.body.results
      .slice(0, 10)
      .map((row: { dimensions: string[]; metrics: number[] }) => [row.dimensions[0] === '(none)' ? '' : row.dimensions[0], row.metrics[0]]);
    assert.deepEqual(await listRows(page, panel), want, `${panel} (${dimension}) for ${JSON.stringify(query)}`);
  }
  await assertActionsMatch(w, page, scope, query);
}

/** The Actions panel (where the plan shows it): each action's visits and times, the query API's event:action rows. */
export async function assertActionsMatch(w: DashboardWorld, page: Page, scope: object, query: Record<string, string>): Promise<void> {
  if ((await page.locator('[data-panel="actions"] .upgrade').count()) > 0) return;
  const r = await w.v2({ ...scope, metrics: ['visits', 'events'], dimensions: ['event:action'], pagination: { limit: 100 } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(
    await page.$$eval('[data-panel="actions"] tbody tr', (rows) =>
      rows.map((row) => [row.getAttribute('data-key'), Number(row.getAttribute('data-value')), Number(row.getAttribute('data-events'))]),
    ),
    r.body.results.slice(0, 10).map((row: { dimensions: string[]; metrics: number[] }) => [row.dimensions[0], ...row.metrics]),
    `actions for ${JSON.stringify(query)}`,
  );
}
