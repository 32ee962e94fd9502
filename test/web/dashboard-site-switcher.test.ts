// The site switcher of a site's dashboard header, in Chromium on a real server: it lists every site the
// person reads, by workspace when there are several (and none of a workspace they are not a member of),
// with a filter box past seven sites; a link keeps the period and compare of the query and drops the
// tenant and filters; the keys open, move, choose and close it; a click outside closes it. axe-core with
// the list open; screenshots at 1400 and 375 px, light and dark, to test-results/screenshots/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { axeViolations, dashboardWorld, missing, SCREENSHOTS, settled, skip, type DashboardWorld } from './dashboard-world.js';

let w: DashboardWorld;
const SIDE = ['Blog', 'Docs portal', 'Shop', 'Status page', 'Careers'];
const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

before(async () => {
  if (skip) return;
  w = await dashboardWorld();
  // a second workspace of the owner's, with five sites: eight in all, in two workspaces
  const c = w.server.container.catalog;
  const side = await c.createWorkspace({ name: 'Side projects', plan: 'pro' });
  for (const name of SIDE)
    await c.createSite({
      workspaceId: side.id,
      name,
      hostnames: [`${name.toLowerCase().replace(/ /g, '-')}.example`],
      collectionProfile: 'strict',
    });
  const owner = await w.server.container.people!.findUserByEmail(w.emails.owner);
  await w.server.container.people!.addMember({ workspaceId: side.id, userId: owner!.user.id, role: 'admin' });
});
after(async () => {
  await w?.close();
});

const PANEL = '#site-switcher-panel';
const BUTTON = '.switcher-button';
const names = (page: Page) => page.$$eval(`${PANEL} a .switcher-site-name`, (a) => a.map((x) => x.textContent));
const focused = (page: Page) => page.evaluate(() => document.activeElement?.textContent ?? document.activeElement?.tagName);
const isOpen = async (page: Page) => (await page.getAttribute(BUTTON, 'aria-expanded')) === 'true';

async function openList(page: Page): Promise<void> {
  await page.click(BUTTON);
  await page.waitForSelector(`${PANEL} a`);
}

test('the switcher lists the sites of each workspace the person is in, and a link keeps the period but not the filters', {
  skip,
  timeout: 60_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const from = addDays(w.today, -13);
  const query = {
    from,
    to: w.today,
    compare: 'prev_period',
    tenant_id: w.tenants.acme,
    filters: JSON.stringify({ device: 'mobile' }),
  };
  const { page, problems } = await w.open(w.siteUrl(w.sites.extended, query), { width: 1400 });
  await settled(page);
  assert.equal(await page.getAttribute(BUTTON, 'aria-controls'), PANEL.slice(1));
  assert.equal(await isOpen(page), false);
  assert.ok(await page.isHidden(PANEL));
  assert.match((await page.textContent(BUTTON))!, /Extended example/);

  await openList(page);
  assert.equal(await isOpen(page), true);
  assert.deepEqual(await names(page), ['Extended example', 'Strict example', 'New site', ...SIDE]);
  assert.deepEqual(await page.$$eval(`${PANEL} .switcher-group-name`, (p) => p.map((x) => x.textContent)), [
    'Dashboard example',
    'Side projects',
  ]);
  assert.doesNotMatch((await page.textContent(PANEL))!, /Free site/, 'not a site of a workspace the owner is not in');
  assert.deepEqual(await page.$$eval(`${PANEL} a[aria-current="page"]`, (a) => a.map((x) => x.getAttribute('data-site-id'))), [
    w.sites.extended,
  ]);
  assert.equal(await page.locator(`${PANEL} input[type="search"]`).count(), 1, 'eight sites: a filter box');
  assert.deepEqual(await axeViolations(page), [], 'the list open');

  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1400, 375]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForTimeout(100);
      assert.ok(await isOpen(page), `${scheme} ${width}: still open`);
      const box = (await page.locator(PANEL).boundingBox())!;
      assert.ok(box.x >= 0 && box.x + box.width <= width, `${scheme} ${width}: the list fits the screen (${JSON.stringify(box)})`);
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), `${scheme} ${width}: no sideways scroll`);
      if (scheme === 'dark') assert.deepEqual(await axeViolations(page), [], `dark ${width}`);
      await page.screenshot({ path: path.join(SCREENSHOTS, `dashboard-site-switcher-${width}-${scheme}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1400, height: 900 });

  // the filter keeps the sites whose name or hostname has the words
  await page.fill(`${PANEL} input`, 'sho');
  assert.deepEqual(await names(page), ['Shop']);
  await page.fill(`${PANEL} input`, 'strict.ex');
  assert.deepEqual(await names(page), ['Strict example']);
  await page.fill(`${PANEL} input`, 'nothing like it');
  assert.match((await page.textContent(PANEL))!, /No site matches/);
  await page.fill(`${PANEL} input`, '');

  // a click outside closes it (the page's margin, right of the content)
  await page.mouse.click(1390, 600);
  assert.equal(await isOpen(page), false);
  assert.ok(await page.isHidden(PANEL));

  // choosing a site: its dashboard, with the period and compare, without the tenant and filters of this one
  await openList(page);
  await page.click(`${PANEL} a:has-text("Strict example")`);
  await page.waitForURL((u) => u.pathname === `/app/sites/${w.sites.strict}`);
  const q = new URL(page.url()).searchParams;
  assert.equal(q.get('from'), from);
  assert.equal(q.get('to'), w.today);
  assert.equal(q.get('compare'), 'prev_period');
  assert.equal(q.get('filters'), null);
  assert.equal(q.get('tenant_id'), null);
  await settled(page);
  assert.match((await page.textContent(BUTTON))!, /Strict example/);
  assert.deepEqual(problems, []);
});

test('the keys open the switcher, move through its sites, choose one, and Escape closes it and gives the focus back', {
  skip,
  timeout: 60_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const from = addDays(w.today, -6);
  const { page, problems } = await w.open(w.siteUrl(w.sites.strict, { from, to: w.today, interval: 'day' }));
  await settled(page);
  await page.focus(BUTTON);
  await page.keyboard.press('Enter');
  await page.waitForSelector(`${PANEL} a`);
  // eight sites: the focus goes to the filter box; down moves through the links, up comes back
  assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).type), 'search');
  await page.keyboard.press('ArrowDown');
  assert.match((await focused(page))!, /^Extended example/);
  await page.keyboard.press('ArrowDown');
  assert.match((await focused(page))!, /^Strict example/);
  await page.keyboard.press('ArrowDown');
  assert.match((await focused(page))!, /^New site/);
  await page.keyboard.press('ArrowUp');
  assert.match((await focused(page))!, /^Strict example/);
  await page.keyboard.press('End');
  assert.match((await focused(page))!, /^Careers/);
  await page.keyboard.press('Escape');
  assert.equal(await isOpen(page), false);
  assert.equal(await page.evaluate(() => document.activeElement?.className), 'switcher-button', 'the focus is back on the button');

  // ArrowDown on the button opens it too; Enter on a link goes there
  await page.keyboard.press('ArrowDown');
  await page.waitForSelector(`${PANEL} a`);
  assert.ok(await isOpen(page));
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  assert.match((await focused(page))!, /^New site/);
  await page.keyboard.press('Enter');
  await page.waitForURL((u) => u.pathname === `/app/sites/${w.sites.empty}`);
  const q = new URL(page.url()).searchParams;
  assert.equal(q.get('from'), from);
  assert.equal(q.get('interval'), 'day');
  assert.deepEqual(problems, []);
});

test('a person in one workspace: its sites only, with no workspace names and no filter box', { skip, timeout: 60_000 }, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const { page, problems } = await w.open(w.siteUrl(w.sites.free), { as: 'free-owner', width: 375 });
  await settled(page);
  await openList(page);
  assert.deepEqual(await names(page), ['Free site']);
  assert.equal(await page.locator(`${PANEL} .switcher-group-name`).count(), 0);
  assert.equal(await page.locator(`${PANEL} input`).count(), 0);
  // focus moved to the current site's link; Tab out of the list closes it
  assert.match((await focused(page))!, /^Free site/);
  await page.keyboard.press('Tab');
  assert.equal(await isOpen(page), false);
  assert.deepEqual(problems, []);
});
