// The signed-in dashboard (/app/sites/<id>, reading /app/api/v1 with the session cookie) in Chromium
// against a real server: every number it draws equals /v1 read with a token of the same workspace for the
// same request (periods, compare, a filter, a tenant, traffic, the hourly chart), clicking a row filters
// the whole page and back/forward undo and redo it, the controls work from the keyboard, a strict site
// shows its locked sections as locked, in a site owner's words (the API's code deciding), and every CSV
// download holds the numbers of the JSON. No Content-Security-Policy refusal or script error on any page.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { assertMatchesV1, assertTilesMatch, listRows } from './dashboard-compare.js';
import { dashboardWorld, missing, SCREENSHOTS, settled, skip, type DashboardWorld } from './dashboard-world.js';

let w: DashboardWorld;
const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
/** What a panel says of a section the strict profile does not collect (web/src/dashboard/panel-words.tsx). */
const profileWords = (what: string) =>
  `${what} are collected only under the Extended profile: switch the site's profile in Settings > Sites.`;
const queryOf = (url: string) => Object.fromEntries(new URL(url).searchParams) as Record<string, string>;

before(async () => {
  if (!skip) w = await dashboardWorld();
});
after(async () => {
  await w?.close();
});

test('the tiles, the chart and three top lists equal /v1 for several periods, compare, a filter, a tenant, traffic and the hourly chart', {
  skip,
  timeout: 180_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const site = w.sites.extended;
  const states: Record<string, string>[] = [
    {},
    { from: addDays(w.today, -6), to: w.today, compare: 'prev_period' },
    { from: addDays(w.today, -89), to: addDays(w.today, -30), metric: 'pageviews' },
    { filters: JSON.stringify({ country: 'FR' }), compare: 'prev_period', metric: 'sessions' },
    { tenant_id: w.tenants.acme, traffic: 'all', interval: 'hour', from: addDays(w.today, -2), to: w.today },
  ];
  for (const state of states) {
    const { page, problems, context } = await w.open(w.siteUrl(site, state));
    await settled(page);
    await assertMatchesV1(w, page, site, state);
    assert.deepEqual(problems, [], JSON.stringify(state));
    // the state stays in the address, with the API's names
    assert.deepEqual(queryOf(page.url()), state);
    await context.close();
  }
});

/** What the chart shows: its interval buttons, its points (the table's), its x axis's span and labels. */
async function chartSeen(page: Page) {
  return {
    title: (await page.textContent('#chart-title'))?.replace(/\s+/g, ' ').trim(),
    /** the interval button pressed; undefined where the plan offers no choice */
    pressed: (await (await page.$('.chart-panel [aria-label="Interval"] [aria-pressed="true"]'))?.textContent())?.trim(),
    starts: await page.$$eval('.chart-table tbody tr', (rows) => rows.map((r) => r.getAttribute('data-start'))),
    from: await page.getAttribute('.chart-panel .plot', 'data-x-from'),
    to: await page.getAttribute('.chart-panel .plot', 'data-x-to'),
    labels: (await page.getAttribute('.chart-panel .plot', 'data-x-labels'))?.split('|') ?? [],
  };
}

const hoursOf = (day: string) => Array.from({ length: 24 }, (_, h) => `${day}T${String(h).padStart(2, '0')}:00:00.000Z`);

test('a one-day period (Today, Yesterday) charts by the hour: 24 points, an axis one day wide with hour labels, equal to /v1; longer periods by the day', {
  skip,
  timeout: 120_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const site = w.sites.extended;
  const { page, problems, context } = await w.open(w.siteUrl(site));
  await settled(page);
  assert.equal((await chartSeen(page)).pressed, 'Days', 'the last 30 days: by the day');

  const byTheHour = async (day: string) => {
    await settled(page);
    const seen = await chartSeen(page);
    assert.equal(seen.title, 'Visitors per hour');
    assert.equal(seen.pressed, 'Hours');
    assert.equal(seen.starts.length, 24);
    assert.deepEqual(
      seen.starts.map((s) => Date.parse(s!)),
      hoursOf(day).map((h) => Date.parse(h)),
      'one point per hour of the day',
    );
    assert.deepEqual([seen.from, seen.to], [`${day}T00:00:00.000Z`, `${day}T23:00:00.000Z`], 'the axis is the day');
    assert.ok(seen.labels.length >= 3, `hour labels: ${seen.labels}`);
    for (const label of seen.labels) assert.match(label, /^(\d\d:00|\d{1,2} [A-Z][a-z]{2})$/, 'an hour, or the day at midnight');
    // the period is in the address; the interval is the period's, so none is written
    assert.deepEqual(queryOf(page.url()), { from: day, to: day });
    await assertMatchesV1(w, page, site, { from: day, to: day, interval: 'hour' });
  };

  await page.selectOption('.date-picker select', 'today');
  await page.waitForURL((u) => u.searchParams.get('from') === w.today && u.searchParams.get('to') === w.today);
  await byTheHour(w.today);
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, 'dashboard-today-by-hour.png'), fullPage: true });

  // the previous period of Today is yesterday, a custom from = to
  const yesterday = addDays(w.today, -1);
  await page.click('.stepper button[aria-label^="Previous period"]');
  await page.waitForURL((u) => u.searchParams.get('from') === yesterday);
  await byTheHour(yesterday);

  // longer periods keep days
  await page.selectOption('.date-picker select', '7d');
  await page.waitForURL((u) => u.searchParams.get('from') === addDays(w.today, -6));
  await settled(page);
  const week = await chartSeen(page);
  assert.equal(week.title, 'Visitors per day');
  assert.equal(week.starts.length, 7);
  assert.deepEqual([week.from, week.to], [`${addDays(w.today, -6)}T00:00:00.000Z`, `${w.today}T00:00:00.000Z`]);
  await assertMatchesV1(w, page, site, { from: addDays(w.today, -6), to: w.today });

  // days picked for one day: kept, in the address; one point, on an axis one day wide, not years
  await page.selectOption('.date-picker select', 'today');
  await page.waitForURL((u) => u.searchParams.get('from') === w.today);
  await settled(page);
  await page.click('.chart-panel [aria-label="Interval"] button:text-is("Days")');
  await page.waitForURL((u) => u.searchParams.get('interval') === 'day');
  await settled(page);
  const one = await chartSeen(page);
  assert.equal(one.title, 'Visitors per day');
  assert.equal(one.starts.length, 1);
  const noon = (day: string, hours: number) => new Date(Date.parse(`${day}T00:00:00Z`) + hours * 3_600_000).toISOString();
  assert.deepEqual([one.from, one.to], [noon(w.today, -12), noon(w.today, 12)], 'half a day either side of the point');
  assert.ok(
    one.labels.every((l) => /^\d{1,2} [A-Z][a-z]{2}$/.test(l)),
    `a chart by the day names days only: ${one.labels}`,
  );
  await assertMatchesV1(w, page, site, { from: w.today, to: w.today, interval: 'day' });
  await page.screenshot({ path: path.join(SCREENSHOTS, 'dashboard-today-by-day.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await context.close();
});

test('a plan without hours charts a one-day period by the day: one point, its axis one day wide', { skip, timeout: 60_000 }, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const { page, problems, context } = await w.open(w.siteUrl(w.sites.free, { from: w.today, to: w.today }), { as: 'free-owner' });
  await settled(page);
  const seen = await chartSeen(page);
  assert.equal(seen.title, 'Visitors per day');
  assert.equal(seen.pressed, undefined, 'no interval to pick on this plan');
  assert.equal(seen.starts.length, 1);
  const at = (h: number) => new Date(Date.parse(`${w.today}T00:00:00Z`) + h * 3_600_000).toISOString();
  assert.deepEqual([seen.from, seen.to], [at(-12), at(12)]);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a burst of clicks meets no 429: three periods and a second site within a second, every panel answered', {
  skip,
  timeout: 120_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  // a session of its own (the viewer's), so that no other test's reads are in its window
  const { page, problems, context } = await w.open('about:blank', { as: 'viewer' });
  // every status under /app/api; a read refused inside a batch is a 429 line in a 200, whose streamed body
  // Chromium does not keep: the server's limiter tells those
  const statuses: string[] = [];
  context.on('response', (res) => {
    const where = new URL(res.url()).pathname;
    if (where.startsWith('/app/api/')) statuses.push(`${res.status()} ${where}`);
  });
  const limiter = w.server.container.limiter;
  const hit = limiter.hit;
  const refused: string[] = [];
  let sessionHits = 0;
  limiter.hit = async (key, ...rest) => {
    const decision = await hit.call(limiter, key, ...rest);
    if (key.startsWith('session:')) sessionHits++;
    if (key.startsWith('session:') && !decision.allowed) refused.push(key);
    return decision;
  };
  try {
    await page.goto(w.siteUrl(w.sites.extended));
    await settled(page);
    // no wait for the numbers between clicks: each waits only for the address to change
    for (const [preset, from] of [
      ['7d', addDays(w.today, -6)],
      ['today', w.today],
      ['90d', addDays(w.today, -89)],
    ]) {
      await page.selectOption('.date-picker select', preset);
      await page.waitForURL((u) => u.searchParams.get('from') === from);
    }
    const second = await context.newPage();
    await second.goto(w.siteUrl(w.sites.strict), { waitUntil: 'commit' });
    await Promise.all([settled(page), settled(second)]);
    for (const p of [page, second]) {
      const failed = await p.$$eval('.problem:not(.locked):not(.upgrade), .tile-problem', (els) => els.map((e) => e.textContent));
      assert.deepEqual(failed, [], 'no panel shows an error');
    }
    await assertTilesMatch(w, page, w.sites.extended, { from: addDays(w.today, -89), to: w.today });
    assert.ok(sessionHits > 60, `the burst was some 80 requests of the session: ${sessionHits}`);
    assert.deepEqual(refused, [], 'no read refused, alone or in a batch');
    assert.deepEqual(
      statuses.filter((s) => s.startsWith('429')),
      [],
      'no 429 to the page',
    );
  } finally {
    limiter.hit = hit;
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('clicking a row filters the whole page; back and forward undo and redo it; the chip removes it', {
  skip,
  timeout: 120_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const site = w.sites.extended;
  const { page, problems, context } = await w.open(w.siteUrl(site, { compare: 'prev_period' }));
  await settled(page);
  const unfiltered = await listRows(page, 'locations');
  await page.click('[data-panel="locations"] li[data-key="FR"] button');
  await page.waitForURL((u) => u.searchParams.has('filters'));
  await settled(page);
  const filtered = { compare: 'prev_period', filters: JSON.stringify({ country: 'FR' }) };
  assert.deepEqual(queryOf(page.url()), filtered);
  await assertMatchesV1(w, page, site, filtered);
  assert.equal(await page.textContent('.chip[data-filter="country"]'), 'Country is France ×');
  // the filtered row is marked, and no longer a button
  assert.equal(await page.locator('[data-panel="locations"] li[data-key="FR"] button').count(), 0);

  await page.goBack();
  await page.waitForURL((u) => !u.searchParams.has('filters'));
  await settled(page);
  await assertTilesMatch(w, page, site, { compare: 'prev_period' });
  assert.deepEqual(await listRows(page, 'locations'), unfiltered);
  assert.equal(await page.locator('.chip').count(), 0);

  await page.goForward();
  await page.waitForURL((u) => u.searchParams.has('filters'));
  await settled(page);
  await assertTilesMatch(w, page, site, filtered);

  await page.click('.chip[data-filter="country"]');
  await page.waitForURL((u) => !u.searchParams.has('filters'));
  await settled(page);
  await assertTilesMatch(w, page, site, { compare: 'prev_period' });
  assert.deepEqual(problems, []);
  await context.close();
});

test("Sources' UTM tabs list the landing pages' campaign tags, equal to /v1's source, medium and campaign breakdowns", {
  skip,
  timeout: 60_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const site = w.sites.extended;
  const { page, problems, context } = await w.open(w.siteUrl(site, {}));
  await settled(page);
  const base = { site_id: site, from: addDays(w.today, -29), to: w.today };
  const seen: Record<string, [string, number][]> = {};
  for (const [tab, dimension] of [
    ['UTM source', 'source'],
    ['UTM medium', 'medium'],
    ['UTM campaign', 'campaign'],
  ] as const) {
    await page.click(`[data-panel="sources"] [role="tab"]:has-text("${tab}")`);
    await settled(page);
    const api = await w.v1('/v1/metrics/breakdown', { ...base, dimension, metric: 'visitors', limit: '100' });
    seen[dimension] = await listRows(page, 'sources');
    assert.deepEqual(
      seen[dimension],
      api.body.current.rows.slice(0, 10).map((r: { key: string | null; value: number }) => [r.key ?? '', r.value]),
      tab,
    );
  }
  // the world tags a fifth of the visits ?utm_source=newsletter&utm_medium=email, and no campaign
  assert.ok(
    seen.source.some(([k, n]) => k === 'newsletter' && n > 0),
    JSON.stringify(seen.source),
  );
  assert.ok(
    seen.medium.some(([k, n]) => k === 'email' && n > 0),
    JSON.stringify(seen.medium),
  );
  assert.deepEqual(problems, []);
  await context.close();
});

test('from the keyboard: a tile charts its metric, the arrow keys change tabs, a row filters, the period steps back; focus is visible', {
  skip,
  timeout: 120_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const site = w.sites.extended;
  const { page, problems, context } = await w.open(w.siteUrl(site));
  await settled(page);

  await page.focus('.tile[data-metric="pageviews"]');
  await page.keyboard.press('Enter');
  await page.waitForURL((u) => u.searchParams.get('metric') === 'pageviews');
  await settled(page);
  assert.match((await page.textContent('#chart-title'))!, /^Pageviews/);
  assert.equal(await page.getAttribute('.tile[data-metric="pageviews"]', 'aria-pressed'), 'true');

  // Tab from the first tab of Sources to its list: the tab then the first row, each with a visible outline
  await page.focus('[data-panel="sources"] [role="tab"][aria-selected="true"]');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.getAttribute('[data-panel="sources"] [role="tab"][aria-selected="true"]', 'id'), 'sources-tab-1');
  await settled(page);
  const base = { site_id: site, from: addDays(w.today, -29), to: w.today };
  const referrers = await w.v1('/v1/metrics/breakdown', { ...base, dimension: 'referrer', metric: 'visitors', limit: '100' });
  assert.deepEqual(
    await listRows(page, 'sources'),
    referrers.body.current.rows.slice(0, 10).map((r: { key: string | null; value: number }) => [r.key ?? '', r.value]),
  );
  const outline = () => page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
  assert.notEqual(await outline(), 'none', 'the focused tab shows it');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('row')), true, 'Tab reaches the first row');
  assert.notEqual(await outline(), 'none', 'the focused row shows it');
  const key = await page.evaluate(() => document.activeElement!.closest('li')!.getAttribute('data-key'));
  await page.keyboard.press('Enter');
  await page.waitForURL((u) => u.searchParams.has('filters'));
  assert.deepEqual(JSON.parse(new URL(page.url()).searchParams.get('filters')!), { referrer: key });
  await settled(page);

  await page.click('button[aria-label^="Previous period"]');
  await page.waitForURL((u) => u.searchParams.has('from'));
  await settled(page);
  const stepped = queryOf(page.url());
  assert.deepEqual([stepped.from, stepped.to], [addDays(w.today, -59), addDays(w.today, -30)]);
  await assertTilesMatch(w, page, site, stepped);

  await page.selectOption('.date-picker select', '7d');
  await page.waitForURL((u) => u.searchParams.get('from') === addDays(w.today, -6));
  await page.check('.switch input');
  await page.waitForURL((u) => u.searchParams.get('compare') === 'prev_period');
  await page.selectOption('.controls label:has-text("Tenant") select', w.tenants.globex);
  await page.waitForURL((u) => u.searchParams.get('tenant_id') === w.tenants.globex);
  await settled(page);
  await assertMatchesV1(w, page, site, queryOf(page.url()));
  assert.deepEqual(problems, []);
  await context.close();
});

test("a strict site: regions, cities and goal conversions are locked (the API's code), said in a site owner's words, never zeros; the numbers it has equal /v1", {
  skip,
  timeout: 120_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const site = w.sites.strict;
  const { page, problems, context } = await w.open(w.siteUrl(site));
  await settled(page);
  await assertMatchesV1(w, page, site, {});
  const base = { site_id: site, from: addDays(w.today, -29), to: w.today };
  for (const [tab, dimension] of [
    ['Regions', 'region'],
    ['Cities', 'city'],
  ] as const) {
    await page.click(`[data-panel="locations"] [role="tab"]:has-text("${tab}")`);
    await settled(page);
    const refused = await w.v1('/v1/metrics/breakdown', { ...base, dimension, metric: 'visitors', limit: '100' });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error.code, 'REPORT_LOCKED_BY_PROFILE');
    const panel = page.locator(`[data-panel="locations"] .list-body[data-dimension="${dimension}"] .problem.locked`);
    assert.equal(await panel.getAttribute('data-code'), 'REPORT_LOCKED_BY_PROFILE');
    assert.equal(await panel.locator('.problem-message').textContent(), profileWords(tab));
    assert.equal(await page.locator('[data-panel="locations"] .rows li').count(), 0, 'no rows, no zeros');
  }
  const goals = await w.v1('/v1/goals/conversions', { ...base, limit: '100' });
  assert.equal(goals.status, 409);
  const goalsPanel = page.locator(`[data-panel="goals"] .problem.locked[data-code="${goals.body.error.code}"]`);
  assert.equal(await goalsPanel.locator('.problem-message').textContent(), profileWords('Goal conversions'));
  const actions = await w.v1('/v1/reports/actions', { ...base, limit: '100' });
  const lockedSections = actions.body.availability.sections
    .filter((s: { current: { status: string } }) => s.current.status === 'locked_by_profile')
    .map((s: { id: string }) => s.id);
  assert.ok(lockedSections.includes('actions_advanced'), JSON.stringify(actions.body.availability.sections));
  assert.deepEqual(
    await page.$$eval('[data-panel="actions"] .locked-sections li', (li) => li.map((l) => l.getAttribute('data-section'))),
    lockedSections,
  );
  assert.deepEqual(
    await page.$$eval('[data-panel="actions"] tbody tr', (rows) =>
      rows.map((r) => [r.getAttribute('data-key'), Number(r.getAttribute('data-value'))]),
    ),
    actions.body.current.actions.slice(0, 10).map((a: { action_key: string; sessions: number }) => [a.action_key, a.sessions]),
  );
  assert.deepEqual(problems, []);
  await context.close();
});

test('CSV: each list and the chart download as CSV; each file is the same read as text/csv, and holds the numbers of the JSON', {
  skip,
  timeout: 120_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const site = w.sites.extended;
  const { page, problems, context } = await w.open(w.siteUrl(site, { compare: 'prev_period' }));
  await settled(page);
  assert.deepEqual(await page.$$eval('.csv button', (b) => b.map((x) => x.getAttribute('aria-label'))), [
    'Download Visitors per day as CSV',
    'Download Channels as CSV',
    'Download Top pages as CSV',
    'Download Countries as CSV',
    'Download Devices as CSV',
  ]);
  const base = { site_id: site, from: addDays(w.today, -29), to: w.today };
  const saved = async (selector: string) => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
    return { name: download.suggestedFilename(), text: fs.readFileSync(await download.path(), 'utf8') };
  };
  // a list: the rows of the JSON, in order, as key,value
  const list = await saved('[data-panel="locations"] .csv button');
  assert.equal(list.name, `Extended_example-${base.from}-${w.today}-country.csv`);
  const q = { ...base, metric: 'visitors', dimension: 'country', limit: '100' };
  const direct = await fetch(`${w.server.address}/v1/metrics/breakdown?${new URLSearchParams(q)}`, {
    headers: { authorization: `Bearer ${w.secret}`, accept: 'text/csv' },
  });
  assert.equal(list.text, await direct.text(), 'the same bytes as /v1 answers text/csv');
  const json = await w.v1('/v1/metrics/breakdown', q);
  const lines = list.text.trimEnd().split('\r\n');
  assert.equal(lines[0], 'key,value');
  assert.deepEqual(
    lines.slice(1),
    json.body.current.rows.map((r: { key: string | null; value: number }) => `${r.key ?? ''},${r.value}`),
  );
  // the chart with compare on: every point of both periods, each row naming its period
  const chart = await saved('.chart-panel .csv button');
  assert.equal(chart.name, `Extended_example-${base.from}-${w.today}-visitors-day.csv`);
  const series = await w.v1('/v1/metrics/timeseries', { ...base, metric: 'visitors', compare: 'prev_period' });
  const points = chart.text.trimEnd().split('\r\n');
  assert.equal(points[0], 'period,start,value');
  const rowsOf = (period: string, ps: { start: string; value: number }[]) => ps.map((p) => `${period},${p.start},${p.value}`);
  assert.deepEqual(points.slice(1), [...rowsOf('current', series.body.current.points), ...rowsOf('compare', series.body.compare.points)]);
  assert.deepEqual(problems, []);
  await context.close();
});
