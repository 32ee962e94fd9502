// Every page of the browser half in Chromium: axe-core finds no serious or critical violation (light,
// and dark where the page draws data), nothing is wider than a 375 px phone, and screenshots in light
// and dark at 1400 and 375 px go to test-results/screenshots/ for a person to look at. The signed-in
// pages use the management API's stand-in (management-stub.ts); their numbers come from /v1.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { assertMatchesV1 } from './dashboard-compare.js';
import { axeViolations, dashboardWorld, missing, SCREENSHOTS, settled, skip, type DashboardWorld } from './dashboard-world.js';
import { failManagementApi, STUB_WORKSPACE, stubManagementApi } from './management-stub.js';

let w: DashboardWorld;
before(async () => {
  if (!skip) w = await dashboardWorld();
});
after(async () => {
  await w?.close();
});

interface PageCase {
  name: string;
  url: () => string;
  /** the management API's stand-in, signed out or signed in, or failing; none: the real one */
  session?: 'signed-in' | 'signed-out' | 'failing';
  /** a dashboard: wait for its reads */
  dashboard?: boolean;
  /** screenshots in both schemes at both widths */
  shots?: boolean;
  ready?: (page: Page) => Promise<void>;
}

const PAGES: PageCase[] = [
  { name: 'embed', url: () => w.embedUrl(w.sites.extended, { compare: 'prev_period' }), dashboard: true, shots: true },
  { name: 'embed-filtered', url: () => w.embedUrl(w.sites.extended, { filters: JSON.stringify({ device: 'mobile' }), tenant_id: w.tenants.acme, interval: 'hour' }), dashboard: true },
  { name: 'embed-strict', url: () => w.embedUrl(w.sites.strict), dashboard: true, shots: true, ready: async (p) => void (await p.click('[data-panel="locations"] [role="tab"]:has-text("Regions")')) },
  { name: 'embed-no-token', url: () => `${w.server.address}/embed` },
  { name: 'site', url: () => `${w.server.address}/app/sites/${w.sites.extended}?compare=prev_period`, session: 'signed-in', dashboard: true, shots: true },
  { name: 'sign-in', url: () => `${w.server.address}/app`, session: 'signed-out', shots: true, ready: (p) => p.waitForSelector('input[name=email]').then(() => undefined) },
  { name: 'sites', url: () => `${w.server.address}/app`, session: 'signed-in', ready: (p) => p.waitForSelector('.site-list a').then(() => undefined) },
  { name: 'sign-in-real-api', url: () => `${w.server.address}/app`, ready: (p) => p.waitForSelector('input[name=email]').then(() => undefined) },
  { name: 'management-api-failing', url: () => `${w.server.address}/app`, session: 'failing', ready: (p) => p.waitForSelector('.problem').then(() => undefined) },
  { name: 'invite', url: () => `${w.server.address}/app/invite/secret-value`, ready: (p) => p.waitForSelector('form').then(() => undefined) },
  { name: 'reset', url: () => `${w.server.address}/app/reset/secret-value`, ready: (p) => p.waitForSelector('form').then(() => undefined) },
  { name: 'sign-in-link', url: () => `${w.server.address}/app/sign-in/secret-value`, ready: (p) => p.waitForSelector('form').then(() => undefined) },
  { name: 'settings', url: () => `${w.server.address}/app/settings/${STUB_WORKSPACE}/tokens`, session: 'signed-in', ready: (p) => p.waitForSelector('.plain-table').then(() => undefined) },
];

async function openCase(c: PageCase, width: number, scheme: 'light' | 'dark') {
  const opened = await w.open('about:blank', { width, scheme });
  if (c.session === 'failing') await failManagementApi(opened.context);
  else if (c.session) await stubManagementApi(opened.context, w, { signedIn: c.session === 'signed-in' });
  await opened.page.goto(c.url(), { waitUntil: 'load' });
  if (c.dashboard) await settled(opened.page);
  await c.ready?.(opened.page);
  if (c.dashboard) await settled(opened.page);
  return opened;
}

test('axe-core finds no serious or critical violation on any page, light or dark; no page is wider than 375 px', { skip, timeout: 300_000 }, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  for (const c of PAGES) {
    for (const scheme of c.dashboard ? (['light', 'dark'] as const) : (['light'] as const)) {
      const { page, problems, context } = await openCase(c, 1400, scheme);
      assert.deepEqual(await axeViolations(page), [], `${c.name} (${scheme})`);
      assert.deepEqual(problems, [], `${c.name} (${scheme})`);
      await context.close();
    }
    const narrow = await openCase(c, 375, 'light');
    const overflow = await narrow.page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(overflow <= 375, `${c.name} is ${overflow} px wide at 375`);
    assert.deepEqual(await axeViolations(narrow.page), [], `${c.name} at 375 px`);
    await narrow.context.close();
  }
});

test('the signed-in dashboard reads /app/api/v1 (the same numbers as /v1), with the site name and current visitors in its frame', { skip, timeout: 120_000 }, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const c = PAGES.find((p) => p.name === 'site')!;
  const reads: string[] = [];
  const { page, context } = await openCase(c, 1400, 'light');
  page.on('request', (r) => reads.push(new URL(r.url()).pathname));
  await page.reload({ waitUntil: 'load' });
  await settled(page);
  await assertMatchesV1(w, page, w.sites.extended, { compare: 'prev_period' });
  assert.equal(await page.textContent('h1'), 'Extended example');
  assert.match((await page.textContent('.live'))!, /3 current visitors/);
  assert.ok(reads.some((p) => p === '/app/api/v1/metrics/timeseries') && reads.every((p) => !p.startsWith('/v1/')), reads.join(' '));
  await context.close();
});

test('screenshots in light and dark at 1400 and 375 px', { skip, timeout: 300_000 }, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  for (const c of PAGES.filter((p) => p.shots)) {
    for (const scheme of ['light', 'dark'] as const) {
      for (const width of [1400, 375]) {
        const { page, context } = await openCase(c, width, scheme);
        const file = path.join(SCREENSHOTS, `${c.name}-${scheme}-${width}.png`);
        await page.screenshot({ path: file, fullPage: true });
        assert.ok(fs.statSync(file).size > 10_000, file);
        await context.close();
      }
    }
  }
});
