// What the dashboard says when its numbers cannot be shown, in Chromium against a real server: a
// suspended site gets one note at the top (who resumes it, where) and calm panels, not an error in each;
// a period older than the plan keeps gets one note with the plan's days and first day, and the date
// inputs refuse earlier days; a site with nothing collected says so in its Actions panel rather than warn
// of availability; a section the profile does not collect is said in a site owner's words, not the
// API's. axe-core on each state; screenshots at 1400 and 375 px to test-results/screenshots/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { tilesOf } from './dashboard-compare.js';
import { axeViolations, dashboardWorld, missing, SCREENSHOTS, settled, skip, type DashboardWorld, type Who } from './dashboard-world.js';

let w: DashboardWorld;
let paused: string;
const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

before(async () => {
  if (skip) return;
  w = await dashboardWorld();
  const c = w.server.container.catalog;
  const site = await c.createSite({
    workspaceId: w.workspaces.pro,
    name: 'Paused site',
    hostnames: ['paused.example'],
    collectionProfile: 'extended',
  });
  await c.updateSite(site.id, { status: 'SUSPENDED' });
  paused = site.id;
});
after(async () => {
  await w?.close();
});

/** The page at 1400 and 375 px, settled: axe finds nothing serious, no script error, a screenshot of each. */
async function atBothWidths(url: string, as: Who, name: string, check: (page: Page) => Promise<void>): Promise<void> {
  for (const width of [1400, 375]) {
    const { page, problems, context } = await w.open(url, { width, as });
    await settled(page);
    await check(page);
    assert.deepEqual(await axeViolations(page), [], `${name} at ${width}`);
    assert.deepEqual(problems, [], `${name} at ${width}`);
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, `dashboard-${name}-${width}.png`), fullPage: true });
    await context.close();
  }
}

/** No panel shows a refusal box, and no tile the API's words. */
async function assertCalm(page: Page, code: string): Promise<void> {
  assert.equal(await page.locator('.problem:not(.upgrade)').count(), 0, 'no error box in any panel (a plan note is no error)');
  const tiles = await tilesOf(page);
  assert.ok(
    tiles.every((t) => t.value === null && t.problem === '–'),
    JSON.stringify(tiles),
  );
  assert.equal(await page.locator(`.tile-problem[data-code="${code}"]`).count(), 6, 'the API code stays on each tile');
}

test('a suspended site: one note at the top saying who resumes it and where, and no error in any panel', {
  skip,
  timeout: 120_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  await atBothWidths(w.siteUrl(paused), 'owner', 'suspended', async (page) => {
    assert.equal(await page.locator('.page-note').count(), 1);
    const note = (await page.textContent('.page-note[data-note="suspended"]'))!;
    assert.match(note, /This site is suspended/);
    assert.match(note, /Resume it in Settings > Sites/);
    assert.equal(await page.getAttribute('.page-note a', 'href'), `/app/settings/${w.workspaces.pro}/sites`);
    await assertCalm(page, 'SITE_INACTIVE');
    assert.equal(await page.locator('.first-event').count(), 0, 'a suspended site waits for no first event');
    assert.doesNotMatch((await page.textContent('main'))!, /not active/i, 'not the API words');
  });
  // a viewer may not resume it: told who can
  const { page, context } = await w.open(w.siteUrl(paused), { as: 'viewer' });
  await settled(page);
  assert.match((await page.textContent('.page-note'))!, /An owner or admin of the workspace can resume it in Settings > Sites/);
  assert.equal(await page.locator('.page-note a').count(), 0);
  await context.close();
});

test("a period past the plan's retention: one note with the plan's days and first day, and the date inputs refuse earlier days", {
  skip,
  timeout: 120_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const { cookie } = await w.session('free-owner');
  const res = await fetch(w.url(`/app/api/sites/${w.sites.free}`), { headers: { cookie: `footfall_session=${cookie}` } });
  const days = ((await res.json()) as { dashboard: { retention_days: number } }).dashboard.retention_days;
  assert.ok(days > 0 && days < 80, `the free plan keeps fewer days than the period asked: ${days}`);
  const first = addDays(w.today, -(days - 1));
  const [y, m, d] = first.split('-').map(Number);
  const label = `${d} ${'Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec'.split(' ')[m - 1]} ${y}`;
  const query = { from: addDays(w.today, -89), to: addDays(w.today, -80) };
  await atBothWidths(w.siteUrl(w.sites.free, query), 'free-owner', 'retention', async (page) => {
    assert.equal(await page.locator('.page-note').count(), 1);
    assert.equal(await page.getAttribute('.page-note', 'data-first-day'), first);
    assert.match(
      (await page.textContent('.page-note'))!,
      new RegExp(`This plan keeps ${days} days of data: choose a period from ${label}`),
    );
    await assertCalm(page, 'RETENTION_EXCEEDED');
    assert.doesNotMatch((await page.textContent('main'))!, /older than|retention window/);
    // the custom dates are on show (the period is no preset): both refuse a day before the first kept
    for (const input of await page.$$('.custom-dates input[type="date"]')) assert.equal(await input.getAttribute('min'), first);
    assert.ok(await page.isDisabled('.custom-dates button[type="submit"]'), 'the period asked cannot be applied');
  });
  // a period within the plan: no note
  const { page, context } = await w.open(w.siteUrl(w.sites.free), { as: 'free-owner' });
  await settled(page);
  assert.equal(await page.locator('.page-note').count(), 0);
  await context.close();
});

test('a site with nothing collected yet: its Actions panel says so, with no note or availability warning', {
  skip,
  timeout: 120_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  await atBothWidths(w.siteUrl(w.sites.empty), 'owner', 'nothing-yet', async (page) => {
    await page.waitForSelector('.first-event');
    await page.waitForSelector('[data-panel="actions"] .empty');
    const actions = (await page.textContent('[data-panel="actions"] .list-body'))!;
    assert.match(actions, /Nothing collected yet/);
    assert.doesNotMatch(actions, /partly available|outside the data collected/);
    assert.equal(await page.locator('[data-panel="actions"] [data-note]').count(), 0);
  });
});

test("a section the site's profile does not collect is said in a site owner's words, the API's code kept", {
  skip,
  timeout: 120_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  await atBothWidths(w.siteUrl(w.sites.strict), 'owner', 'regions-locked', async (page) => {
    await page.click('[data-panel="locations"] [role="tab"]:has-text("Regions")');
    const problem = '[data-panel="locations"] .problem[data-code="REPORT_LOCKED_BY_PROFILE"]';
    await page.waitForSelector(problem);
    await settled(page);
    const text = (await page.textContent(problem))!;
    assert.match(text, /Regions are collected only under the Extended profile: switch the site's profile in Settings > Sites/);
    assert.doesNotMatch(text, /route|requires Extended collection/);
  });
});
