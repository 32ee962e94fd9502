// The signed-in dashboard (/app/sites/<id>, reading the query API's twin with the session cookie) in
// Chromium against a real server, its extended site in Asia/Kathmandu (+05:45): every number it draws
// equals POST /api/v2/query read with a token of the same workspace for the same state (periods in the
// site's days, compare with the previous period, the year before or dates, is / is not / contains
// filters, a tenant, traffic, the hourly chart, weeks and months), clicking a row filters
// the whole page and back/forward undo and redo it, the controls work from the keyboard, a strict site
// shows its locked sections as locked, in a site owner's words (the API's code deciding), and every CSV
// download holds the numbers of the JSON. No Content-Security-Policy refusal or script error on any page.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { assertActionsMatch, assertMatchesQuery, assertTilesMatch, listRows, queryScope } from './dashboard-compare.js';
import { axeViolations, dashboardWorld, missing, SCREENSHOTS, settled, skip, type DashboardWorld } from './dashboard-world.js';

let w: DashboardWorld;
const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
/** What a panel says of a section the strict profile does not collect (web/src/dashboard/panel-words.tsx). */
const profileWords = (what: string) =>
  `${what} are collected only under the Extended profile: switch the site's profile in Settings > Sites.`;
/** A query API row of one dimension as a top list shows it: its key ("(none)" as empty) and visitors. */
const rowOf = (r: { dimensions: string[]; metrics: number[] }) => [r.dimensions[0] === '(none)' ? '' : r.dimensions[0], r.metrics[0]];
const queryOf = (url: string) => Object.fromEntries(new URL(url).searchParams) as Record<string, string>;

before(async () => {
  if (!skip) w = await dashboardWorld({ extendedZone: 'Asia/Kathmandu' });
});
after(async () => {
  await w?.close();
});

test("the tiles, the chart and three top lists equal the query API in the site's zone for periods, compares, filters, a tenant, traffic, hours, weeks and months", {
  skip,
  timeout: 240_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const site = w.sites.extended;
  const today = w.localToday;
  const states: Record<string, string>[] = [
    {},
    { from: addDays(today, -6), to: today, compare: 'prev_period' },
    { from: addDays(today, -89), to: addDays(today, -30), metric: 'pageviews' },
    { filters: JSON.stringify({ country: 'FR' }), compare: 'prev_period', metric: 'visits' },
    {
      filters: JSON.stringify([
        ['contains', 'page', 'DOCS'],
        ['is_not', 'country', 'US'],
      ]),
      compare: 'year_over_year',
      metric: 'bounce_rate',
    },
    { compare: 'custom', compare_from: addDays(today, -60), compare_to: addDays(today, -45), metric: 'visit_duration' },
    { tenant_id: w.tenants.acme, traffic: 'all', interval: 'hour', from: addDays(today, -2), to: today },
    { from: addDays(today, -95), to: today, interval: 'week' },
    { from: addDays(today, -95), to: today, interval: 'month', metric: 'views_per_visit' },
  ];
  for (const state of states) {
    const { page, problems, context } = await w.open(w.siteUrl(site, state));
    await settled(page);
    await assertMatchesQuery(w, page, site, state);
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

/** The 24 buckets of a local day, as the query API labels them. */
const hoursOf = (day: string) => Array.from({ length: 24 }, (_, h) => `${day} ${String(h).padStart(2, '0')}:00:00`);

test("a one-day period (Today, Yesterday) of the site's zone charts by the hour: 24 points, an axis one day wide with hour labels, equal to the query API; longer periods by the day", {
  skip,
  timeout: 120_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const site = w.sites.extended;
  const today = w.localToday;
  const { page, problems, context } = await w.open(w.siteUrl(site));
  await settled(page);
  assert.equal((await chartSeen(page)).pressed, 'Days', 'the last 30 days: by the day');

  const byTheHour = async (day: string) => {
    await settled(page);
    const seen = await chartSeen(page);
    assert.equal(seen.title, 'Visitors per hour');
    assert.equal(seen.pressed, 'Hours');
    assert.deepEqual(seen.starts, hoursOf(day), "one point per hour of the site's day");
    // the axis is the site's wall clock: its day from 00:00 to 23:00, whatever UTC says
    assert.deepEqual([seen.from, seen.to], [`${day}T00:00:00.000Z`, `${day}T23:00:00.000Z`], 'the axis is the day');
    assert.ok(seen.labels.length >= 3, `hour labels: ${seen.labels}`);
    for (const label of seen.labels) assert.match(label, /^(\d\d:00|\d{1,2} [A-Z][a-z]{2})$/, 'an hour, or the day at midnight');
    // the period is in the address; the interval is the period's, so none is written
    assert.deepEqual(queryOf(page.url()), { from: day, to: day });
    await assertMatchesQuery(w, page, site, { from: day, to: day, interval: 'hour' });
  };

  // "Today" is the site's today (Kathmandu's date, a day ahead of UTC from 18:15 UTC on)
  await page.selectOption('.date-picker select', 'today');
  await page.waitForURL((u) => u.searchParams.get('from') === today && u.searchParams.get('to') === today);
  await byTheHour(today);
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, 'dashboard-today-by-hour.png'), fullPage: true });

  // the previous period of Today is yesterday, a custom from = to
  const yesterday = addDays(today, -1);
  await page.click('.stepper button[aria-label^="Previous period"]');
  await page.waitForURL((u) => u.searchParams.get('from') === yesterday);
  await byTheHour(yesterday);

  // longer periods keep days
  await page.selectOption('.date-picker select', '7d');
  await page.waitForURL((u) => u.searchParams.get('from') === addDays(today, -6));
  await settled(page);
  const week = await chartSeen(page);
  assert.equal(week.title, 'Visitors per day');
  assert.equal(week.starts.length, 7);
  assert.deepEqual([week.from, week.to], [`${addDays(today, -6)}T00:00:00.000Z`, `${today}T00:00:00.000Z`]);
  await assertMatchesQuery(w, page, site, { from: addDays(today, -6), to: today });

  // a year: by the month, each point a month of the site's days
  await page.selectOption('.date-picker select', '12mo');
  await page.waitForURL((u) => u.searchParams.get('to') === today && u.searchParams.get('from')!.endsWith('-01'));
  await settled(page);
  const year = await chartSeen(page);
  assert.equal(year.title, 'Visitors per month');
  assert.equal(year.pressed, 'Months');
  assert.equal(year.starts.length, 12);
  assert.ok(
    year.starts.every((s) => s!.endsWith('-01')),
    `months start on the 1st: ${year.starts}`,
  );
  await assertMatchesQuery(w, page, site, queryOf(page.url()));
  await page.screenshot({ path: path.join(SCREENSHOTS, 'dashboard-year-by-month.png'), fullPage: true });

  // days picked for one day: kept, in the address; one point, on an axis one day wide, not years
  await page.selectOption('.date-picker select', 'today');
  await page.waitForURL((u) => u.searchParams.get('from') === today);
  await settled(page);
  await page.click('.chart-panel [aria-label="Interval"] button:text-is("Days")');
  await page.waitForURL((u) => u.searchParams.get('interval') === 'day');
  await settled(page);
  const one = await chartSeen(page);
  assert.equal(one.title, 'Visitors per day');
  assert.equal(one.starts.length, 1);
  const noon = (day: string, hours: number) => new Date(Date.parse(`${day}T00:00:00Z`) + hours * 3_600_000).toISOString();
  assert.deepEqual([one.from, one.to], [noon(today, -12), noon(today, 12)], 'half a day either side of the point');
  assert.ok(
    one.labels.every((l) => /^\d{1,2} [A-Z][a-z]{2}$/.test(l)),
    `a chart by the day names days only: ${one.labels}`,
  );
  await assertMatchesQuery(w, page, site, { from: today, to: today, interval: 'day' });
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
  assert.equal(seen.pressed, 'Days');
  assert.deepEqual(
    await page.$$eval('.chart-panel [aria-label="Interval"] button', (b) => b.map((x) => x.textContent)),
    ['Days', 'Weeks', 'Months'],
    'no hours to pick on this plan',
  );
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
    const today = w.localToday;
    for (const [preset, from] of [
      ['7d', addDays(today, -6)],
      ['today', today],
      ['90d', addDays(today, -89)],
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
    await assertTilesMatch(w, page, w.sites.extended, { from: addDays(today, -89), to: today });
    // four views of one site and one of another, some 14 reads each (the six tiles are one read)
    assert.ok(sessionHits > 50, `the burst was some 70 requests of the session: ${sessionHits}`);
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
  const filtered = { compare: 'prev_period', filters: JSON.stringify([['is', 'country', 'FR']]) };
  assert.deepEqual(queryOf(page.url()), filtered);
  await assertMatchesQuery(w, page, site, filtered);
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

test("Sources' UTM tabs list the landing pages' campaign tags, equal to the query API's utm_source, utm_medium and utm_campaign rows", {
  skip,
  timeout: 60_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const site = w.sites.extended;
  const { page, problems, context } = await w.open(w.siteUrl(site, {}));
  await settled(page);
  const scope = queryScope(w, site, {});
  const seen: Record<string, [string, number][]> = {};
  for (const [tab, dimension] of [
    ['UTM source', 'source'],
    ['UTM medium', 'medium'],
    ['UTM campaign', 'campaign'],
  ] as const) {
    await page.click(`[data-panel="sources"] [role="tab"]:has-text("${tab}")`);
    await settled(page);
    const api = await w.v2({ ...scope, metrics: ['visitors'], dimensions: [`visit:utm_${dimension}`], pagination: { limit: 100 } });
    seen[dimension] = await listRows(page, 'sources');
    assert.deepEqual(seen[dimension], api.body.results.slice(0, 10).map(rowOf), tab);
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
  const referrers = await w.v2({
    ...queryScope(w, site, {}),
    metrics: ['visitors'],
    dimensions: ['visit:referrer'],
    pagination: { limit: 100 },
  });
  assert.deepEqual(await listRows(page, 'sources'), referrers.body.results.slice(0, 10).map(rowOf));
  const outline = () => page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
  assert.notEqual(await outline(), 'none', 'the focused tab shows it');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('row')), true, 'Tab reaches the first row');
  assert.notEqual(await outline(), 'none', 'the focused row shows it');
  const key = await page.evaluate(() => document.activeElement!.closest('li')!.getAttribute('data-key'));
  await page.keyboard.press('Enter');
  await page.waitForURL((u) => u.searchParams.has('filters'));
  assert.deepEqual(JSON.parse(new URL(page.url()).searchParams.get('filters')!), [['is', 'referrer', key]]);
  await settled(page);

  await page.click('button[aria-label^="Previous period"]');
  await page.waitForURL((u) => u.searchParams.has('from'));
  await settled(page);
  const stepped = queryOf(page.url());
  // the last 30 days step back by 30 days; on a day they make a whole calendar month (the 30th of a 30-day
  // month), by that month, as every calendar month steps
  const [first, last] = [addDays(w.localToday, -29), w.localToday];
  const wholeMonth = first.endsWith('-01') && addDays(last, 1).endsWith('-01');
  const monthBefore = addDays(first, -1);
  assert.deepEqual(
    [stepped.from, stepped.to],
    wholeMonth ? [`${monthBefore.slice(0, 7)}-01`, monthBefore] : [addDays(w.localToday, -59), addDays(w.localToday, -30)],
  );
  await assertTilesMatch(w, page, site, stepped);

  await page.selectOption('.date-picker select', '7d');
  await page.waitForURL((u) => u.searchParams.get('from') === addDays(w.localToday, -6));
  await page.focus('.compare-picker select');
  await page.selectOption('.compare-picker select', 'previous_period');
  await page.waitForURL((u) => u.searchParams.get('compare') === 'prev_period');
  await page.selectOption('.controls label:has-text("Tenant") select', w.tenants.globex);
  await page.waitForURL((u) => u.searchParams.get('tenant_id') === w.tenants.globex);
  await settled(page);
  await assertMatchesQuery(w, page, site, queryOf(page.url()));
  assert.deepEqual(problems, []);
  await context.close();
});

test("a strict site: regions and cities are locked (the API's code), said in a site owner's words, never zeros; the numbers it has equal the query API; goals count; actions are the simple ones, and the panel says why", {
  skip,
  timeout: 120_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const site = w.sites.strict;
  const { page, problems, context } = await w.open(w.siteUrl(site));
  await settled(page);
  await assertMatchesQuery(w, page, site, {});
  const scope = queryScope(w, site, {});
  for (const [tab, dimension] of [
    ['Regions', 'region'],
    ['Cities', 'city'],
  ] as const) {
    await page.click(`[data-panel="locations"] [role="tab"]:has-text("${tab}")`);
    await settled(page);
    const refused = await w.v2({ ...scope, metrics: ['visitors'], dimensions: [`visit:${dimension}`], pagination: { limit: 100 } });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error.code, 'REPORT_LOCKED_BY_PROFILE');
    const panel = page.locator(`[data-panel="locations"] .list-body[data-dimension="${dimension}"] .problem.locked`);
    assert.equal(await panel.getAttribute('data-code'), 'REPORT_LOCKED_BY_PROFILE');
    assert.equal(await panel.locator('.problem-message').textContent(), profileWords(tab));
    assert.equal(await page.locator('[data-panel="locations"] .rows li').count(), 0, 'no rows, no zeros');
  }
  // a goal of a page pattern needs nothing the strict profile leaves out: the query API counts it
  const goals = await w.v2({ ...scope, metrics: ['visitors', 'events', 'conversion_rate'], dimensions: ['event:goal'] });
  assert.equal(goals.status, 200, JSON.stringify(goals.body));
  assert.deepEqual(
    await page.$$eval('[data-panel="goals"] tbody tr', (rows) =>
      rows.map((r) => [
        r.getAttribute('data-key'),
        Number(r.getAttribute('data-value')),
        Number(r.getAttribute('data-events')),
        Number(r.getAttribute('data-rate')),
      ]),
    ),
    goals.body.results.map((r: { dimensions: string[]; metrics: number[] }) => [r.dimensions[0], ...r.metrics]),
  );
  // actions: the simple ones alone, as the strict profile keeps them, and the answer's note says so in the panel
  const actions = await w.v2({ ...scope, metrics: ['visits', 'events'], dimensions: ['event:action'], pagination: { limit: 100 } });
  assert.equal(actions.status, 200, JSON.stringify(actions.body));
  assert.ok(actions.body.results.length > 0, 'the strict site has actions');
  assert.ok(
    actions.body.results.every((r: { dimensions: string[] }) =>
      /^(ui\.click|outbound\.click|file\.download|form\.submit)\b/.test(r.dimensions[0]),
    ),
  );
  assert.deepEqual(await page.$$eval('[data-panel="actions"] [data-note]', (p) => p.map((x) => x.textContent)), actions.body.meta.notes);
  assert.match(actions.body.meta.notes[0], /strict profile/);
  await assertActionsMatch(w, page, scope, {});
  assert.deepEqual(await axeViolations(page), []);
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.locator('[data-panel="actions"]').screenshot({ path: path.join(SCREENSHOTS, 'dashboard-strict-actions.png') });
  assert.deepEqual(problems, []);
  await context.close();
});

test('CSV: each list and the chart download as CSV; each file is the same query as text/csv, and holds the numbers of the JSON', {
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
    'Download Property plan as CSV',
    'Download Actions as CSV',
  ]);
  const scope = queryScope(w, site, {});
  const [from, to] = scope.date_range;
  const saved = async (selector: string) => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
    return { name: download.suggestedFilename(), text: fs.readFileSync(await download.path(), 'utf8') };
  };
  // a list: the rows of the JSON, in order, as dimension,visitors
  const list = await saved('[data-panel="locations"] .csv button');
  assert.equal(list.name, `Extended_example-${from}-${to}-country.csv`);
  const body = { ...scope, metrics: ['visitors'], dimensions: ['visit:country'], pagination: { limit: 100 } };
  const direct = await w.v2(body, 'text/csv');
  assert.equal(list.text, direct.body, 'the same bytes as the query API answers text/csv');
  const json = await w.v2(body);
  const lines = list.text.trimEnd().split('\r\n');
  assert.equal(lines[0], 'visit:country,visitors');
  assert.deepEqual(
    lines.slice(1),
    json.body.results.map((r: { dimensions: string[]; metrics: number[] }) => `${r.dimensions[0]},${r.metrics[0]}`),
  );
  // the actions: each action's visits and times, the query API's event:action rows as text/csv
  const actions = await saved('[data-panel="actions"] .csv button');
  assert.equal(actions.name, `Extended_example-${from}-${to}-actions.csv`);
  const actionsCsv = await w.v2(
    { ...scope, metrics: ['visits', 'events'], dimensions: ['event:action'], pagination: { limit: 100 } },
    'text/csv',
  );
  assert.equal(actions.text, actionsCsv.body);
  assert.equal(actions.text.split('\r\n')[0], 'event:action,visits,events');
  // the chart: one line per day of the site with a row, its local date and its number
  const chart = await saved('.chart-panel .csv button');
  assert.equal(chart.name, `Extended_example-${from}-${to}-visitors-day.csv`);
  const series = await w.v2({
    ...scope,
    metrics: ['visitors'],
    dimensions: ['time:day'],
    include: { time_labels: true, compare: 'previous_period' },
  });
  const points = chart.text.trimEnd().split('\r\n');
  assert.equal(points[0], 'time:day,visitors');
  assert.deepEqual(
    points.slice(1),
    series.body.results.map((r: { dimensions: string[]; metrics: number[] }) => `${r.dimensions[0]},${r.metrics[0]}`),
  );
  assert.ok(
    points.slice(1).every((l) => l.slice(0, 10) >= from && l.slice(0, 10) <= to),
    "every line is a local day of the site's period",
  );
  assert.deepEqual(problems, []);
  await context.close();
});

test('the filter menu adds is not and contains filters (values suggested from the period), the compare menu a year before and dates of one’s own; numbers equal the query API', {
  skip,
  timeout: 120_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const site = w.sites.extended;
  const { page, problems, context } = await w.open(w.siteUrl(site));
  await settled(page);
  await page.click('button:has-text("Add a filter")');
  const menu = page.locator('form.filter-menu');
  await menu.locator('label:has-text("Filter by") select').selectOption('page');
  await menu.locator('label:has-text("Operator") select').selectOption('contains');
  await menu.locator('input[type=text]').fill('DOC');
  // the suggestions: the pages of the period containing what was typed, in any case
  await page.waitForFunction(() => document.querySelectorAll('#filter-values option').length === 2);
  assert.deepEqual(await page.$$eval('#filter-values option', (o) => o.map((x) => (x as HTMLOptionElement).value).sort()), [
    '/docs',
    '/docs/install',
  ]);
  assert.deepEqual(await axeViolations(page), [], 'the open filter menu');
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, 'dashboard-filter-menu.png') });
  await menu.locator('button[type=submit]').click();
  await page.waitForURL((u) => u.searchParams.has('filters'));
  await page.click('button:has-text("Add a filter")');
  await menu.locator('label:has-text("Filter by") select').selectOption('country');
  await menu.locator('label:has-text("Operator") select').selectOption('is_not');
  await menu.locator('input[type=text]').fill('US');
  await menu.locator('button[type=submit]').click();
  await page.waitForURL((u) => (u.searchParams.get('filters') ?? '').includes('is_not'));
  await settled(page);
  const filtered = queryOf(page.url());
  assert.deepEqual(JSON.parse(filtered.filters), [
    ['contains', 'page', 'DOC'],
    ['is_not', 'country', 'US'],
  ]);
  assert.deepEqual(await page.$$eval('.chip', (c) => c.map((x) => x.textContent)), [
    'Page contains “DOC” ×',
    'Country is not United States ×',
  ]);
  await assertMatchesQuery(w, page, site, filtered);
  const countries = (await listRows(page, 'locations')).map(([k]) => k);
  assert.ok(countries.length > 0 && !countries.includes('US'), `no US row: ${countries}`);
  assert.ok(
    (await listRows(page, 'pages')).every(([k]) => k.toLowerCase().includes('doc')),
    'only pages containing "doc"',
  );

  // a year before, then dates of one's own
  await page.selectOption('.compare-picker select', 'year_over_year');
  await page.waitForURL((u) => u.searchParams.get('compare') === 'year_over_year');
  await settled(page);
  await assertTilesMatch(w, page, site, queryOf(page.url()));
  await page.selectOption('.compare-picker select', 'custom');
  const [from, to] = [addDays(w.localToday, -70), addDays(w.localToday, -41)];
  await page.fill('input[type=date] >> nth=-2', from);
  await page.fill('input[type=date] >> nth=-1', to);
  await page.click('.compare-picker button[type=submit]');
  await page.waitForURL((u) => u.searchParams.get('compare') === 'custom');
  await settled(page);
  const custom = queryOf(page.url());
  assert.deepEqual([custom.compare_from, custom.compare_to], [from, to]);
  await assertMatchesQuery(w, page, site, custom);
  assert.deepEqual(await axeViolations(page), [], 'the page with filters and a comparison');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'dashboard-filters-compare.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await context.close();
});

test('a goal row and an action row filter the whole page (event:goal, event:action), an older event link still opens; every number equals the query API', {
  skip,
  timeout: 120_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const site = w.sites.extended;
  const { page, problems, context } = await w.open(w.siteUrl(site));
  await settled(page);
  await page.click('[data-panel="goals"] tbody tr[data-key="Saw pricing"] button');
  await page.waitForURL((u) => u.searchParams.has('filters'));
  await settled(page);
  const byGoal = queryOf(page.url());
  assert.deepEqual(JSON.parse(byGoal.filters), [['is', 'goal', 'Saw pricing']]);
  assert.equal(await page.textContent('.chip[data-filter="goal"]'), 'Goal is Saw pricing ×');
  await assertMatchesQuery(w, page, site, byGoal);
  // the visitors who reached the goal: fewer than all, and every one of them saw /pricing
  const pages = await listRows(page, 'pages');
  assert.ok(
    pages.some(([k]) => k === '/pricing'),
    JSON.stringify(pages),
  );
  await page.click('.chip[data-filter="goal"]');
  await page.waitForURL((u) => !u.searchParams.has('filters'));
  await settled(page);
  const signup = page.locator('[data-panel="actions"] tbody tr:has-text("Signup")').first();
  const action = (await signup.getAttribute('data-key'))!;
  await signup.locator('button').click();
  await page.waitForURL((u) => u.searchParams.has('filters'));
  await settled(page);
  const byAction = queryOf(page.url());
  assert.deepEqual(JSON.parse(byAction.filters), [['is', 'action', action]]);
  assert.equal(await page.textContent('.chip[data-filter="action"]'), `Action is ${action} ×`);
  await assertMatchesQuery(w, page, site, byAction);
  // the filtered page's Actions panel: that action's row, the one not a button
  assert.equal(await page.locator('[data-panel="actions"] tbody .current-filter').textContent(), action);
  // a link of the older form (an event by its name) still opens, filtered by event:name
  const byEvent = { filters: JSON.stringify([['is', 'event', 'Signup']]) };
  await page.goto(w.siteUrl(site, byEvent));
  await settled(page);
  await assertMatchesQuery(w, page, site, byEvent);
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems, []);
  await context.close();
});

test("custom properties: the keys of the period, then a key's values as a top list; a value filters the page; a strict site says they are not collected", {
  skip,
  timeout: 120_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const site = w.sites.extended;
  const { page, problems, context } = await w.open(w.siteUrl(site));
  await settled(page);
  const scope = queryScope(w, site, {});
  const keys = await w.v2({ ...scope, metrics: ['visitors'], dimensions: ['event:props'], pagination: { limit: 100 } });
  assert.equal(keys.status, 200, JSON.stringify(keys.body));
  const panel = page.locator('[data-panel="props"]');
  assert.deepEqual(
    await panel.locator('select option').allTextContents(),
    keys.body.results.map((r: { dimensions: string[] }) => r.dimensions[0]),
  );
  await panel.locator('select').selectOption('plan');
  await settled(page);
  const plans = await w.v2({ ...scope, metrics: ['visitors'], dimensions: ['event:props:plan'], pagination: { limit: 100 } });
  assert.deepEqual(await listRows(page, 'props'), plans.body.results.slice(0, 10).map(rowOf));
  assert.ok((await listRows(page, 'props')).some(([k]) => k === 'pro'));
  await panel.locator('li[data-key="pro"] button').click();
  await page.waitForURL((u) => u.searchParams.has('filters'));
  await settled(page);
  const filtered = queryOf(page.url());
  assert.deepEqual(JSON.parse(filtered.filters), [['is', 'prop:plan', 'pro']]);
  assert.equal(await page.textContent('.chip[data-op="is"]'), 'Property plan is pro ×');
  await assertMatchesQuery(w, page, site, filtered);
  assert.deepEqual(await axeViolations(page), []);
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.locator('[data-panel="props"]').screenshot({ path: path.join(SCREENSHOTS, 'dashboard-props-panel.png') });
  // the strict site stores none: the panel says so in a site owner's words, with the API's code
  await page.goto(w.siteUrl(w.sites.strict));
  await settled(page);
  // said quietly (the panel is always on show), not as a failed read
  const locked = page.locator('[data-panel="props"] [data-code="REPORT_LOCKED_BY_PROFILE"]');
  assert.equal(await locked.textContent(), profileWords('Custom properties'));
  assert.equal(await page.locator('[data-panel="props"] .problem').count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});
