// Every page of the signed-in dashboard and its settings in Chromium, on the real management API: axe-core
// finds no serious or critical violation (light, and dark where the page draws data or settings), nothing
// is wider than a 375 px phone, and screenshots in light and dark at 1400 and 375 px go to
// test-results/screenshots/ for a person to look at. Signed in through the management API (dashboard-world.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { assertMatchesQuery } from './dashboard-compare.js';
import { axeViolations, dashboardWorld, missing, SCREENSHOTS, settled, skip, type DashboardWorld, type Who } from './dashboard-world.js';

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
  /** who is signed in (default: the pro workspace's owner) */
  as?: Who;
  /** a dashboard: wait for its numbers */
  dashboard?: boolean;
  /** axe in the dark scheme too */
  dark?: boolean;
  /** screenshots in both schemes at both widths */
  shots?: boolean;
  /** the management API fails (503): the page says so rather than ask for a sign-in */
  failing?: boolean;
  ready?: (page: Page) => Promise<void>;
}

const visible = (selector: string) => (p: Page) => p.waitForSelector(selector).then(() => undefined);
const settings =
  (section: string, ws = () => w.workspaces.pro) =>
  () =>
    w.url(`/app/settings/${ws()}/${section}`);

const PAGES: PageCase[] = [
  { name: 'dashboard', url: () => w.siteUrl(w.sites.extended, { compare: 'prev_period' }), dashboard: true, dark: true, shots: true },
  {
    name: 'dashboard-filtered',
    url: () => w.siteUrl(w.sites.extended, { filters: JSON.stringify({ device: 'mobile' }), tenant_id: w.tenants.acme, interval: 'hour' }),
    dashboard: true,
  },
  {
    name: 'dashboard-strict',
    url: () => w.siteUrl(w.sites.strict),
    dashboard: true,
    dark: true,
    ready: async (p) => void (await p.click('[data-panel="locations"] [role="tab"]:has-text("Regions")')),
  },
  { name: 'dashboard-free', url: () => w.siteUrl(w.sites.free), as: 'free-owner', dashboard: true, dark: true, shots: true },
  { name: 'dashboard-waiting', url: () => w.siteUrl(w.sites.empty), dashboard: true, shots: true, ready: visible('.first-event') },
  { name: 'no-such-site', url: () => w.siteUrl('site_unknown'), ready: visible('.notice') },
  { name: 'sign-in', url: () => w.url('/app'), as: null, shots: true, ready: visible('input[name=email]') },
  { name: 'sites', url: () => w.url('/app'), ready: visible('.site-list a') },
  { name: 'sites-viewer', url: () => w.url('/app'), as: 'viewer', ready: visible('.site-list a') },
  { name: 'management-api-failing', url: () => w.url('/app'), as: null, failing: true, ready: visible('.problem') },
  { name: 'invite-unusable', url: () => w.url('/app/invite/secret-value'), as: null, ready: visible('.problem') },
  { name: 'reset', url: () => w.url('/app/reset/secret-value'), as: null, ready: visible('form') },
  { name: 'sign-in-link', url: () => w.url('/app/sign-in/secret-value'), as: null, ready: visible('form') },
  { name: 'settings-sites', url: settings('sites'), dark: true, shots: true, ready: visible('.site-card') },
  { name: 'settings-tenants', url: settings('tenants'), ready: visible('[data-tenant]') },
  { name: 'settings-goals', url: settings('goals'), ready: visible('[data-goal]') },
  { name: 'settings-tokens', url: settings('tokens'), dark: true, shots: true, ready: visible('[data-token]') },
  { name: 'settings-members', url: settings('members'), dark: true, shots: true, ready: visible('[data-member]') },
  { name: 'settings-usage', url: settings('usage'), shots: true, ready: visible('[data-usage="events"] .usage-value') },
  { name: 'settings-viewer', url: settings('sites'), as: 'viewer', ready: visible('.notice') },
  {
    name: 'settings-free-tokens',
    url: settings('tokens', () => w.workspaces.free),
    as: 'free-owner',
    dark: true,
    ready: visible('.upgrade'),
  },
];

async function openCase(
  c: PageCase,
  width: number,
  scheme: 'light' | 'dark',
): Promise<{ page: Page; problems: string[]; context: BrowserContext }> {
  const opened = await w.open('about:blank', { width, scheme, as: c.as });
  if (c.failing)
    await opened.context.route('**/app/api/**', (route) =>
      route.fulfill({ status: 503, json: { error: { code: 'INTERNAL_ERROR', message: 'Unavailable.', request_id: 'test' } } }),
    );
  await opened.page.goto(c.url(), { waitUntil: 'load' });
  if (c.dashboard) await settled(opened.page);
  await c.ready?.(opened.page);
  if (c.dashboard) await settled(opened.page);
  return opened;
}

test('axe-core finds no serious or critical violation on any page, light or dark; no page is wider than 375 px', {
  skip,
  timeout: 400_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  for (const c of PAGES) {
    for (const scheme of c.dark ? (['light', 'dark'] as const) : (['light'] as const)) {
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

test("the signed-in dashboard reads the query API's twin, /app/api/v1 and the management API only (the query API's numbers); its frame names the site and its current visitors", {
  skip,
  timeout: 120_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const reads: string[] = [];
  const { page, context } = await w.open('about:blank');
  // a batch (GET /app/api/reads) carries the page's reads as its r parameters: each counts as the read it names
  page.on('request', (r) => {
    const url = new URL(r.url());
    reads.push(url.pathname);
    if (url.pathname === '/app/api/reads') reads.push(...url.searchParams.getAll('r').map((read) => `/app/api${read.split('?')[0]}`));
  });
  await page.goto(w.siteUrl(w.sites.extended, { compare: 'prev_period' }), { waitUntil: 'load' });
  await settled(page);
  await assertMatchesQuery(w, page, w.sites.extended, { compare: 'prev_period' });
  assert.equal(await page.textContent('h1'), 'Extended example');
  // the fixture's last visits are more than five minutes old: nobody is on the site now
  await page.waitForSelector('.live');
  assert.equal(await page.getAttribute('.live', 'data-visitors'), '0');
  const api = reads.filter((p) => p.startsWith('/app/api/') || p.startsWith('/v1/'));
  assert.ok(api.includes('/app/api/api/v2/query'), api.join(' '));
  assert.ok(api.includes('/app/api/reads'), `the reads leave together: ${api.join(' ')}`);
  assert.deepEqual(
    api.filter((p) => p.startsWith('/v1/')),
    [],
    'nothing of /v1 itself',
  );
  assert.ok(
    ['/app/api/session', `/app/api/sites/${w.sites.extended}`, `/app/api/sites/${w.sites.extended}/live`].every((p) => api.includes(p)),
    api.join(' '),
  );
  await context.close();
});

test("Settings > Usage shows the month's stored events and the plan's included ones, as the management API counts them", {
  skip,
  timeout: 120_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const { page, problems, context } = await w.open(settings('usage')());
  await page.waitForSelector('[data-usage="events"] .usage-value');
  const shown = (await page.textContent('[data-usage="events"] .usage-value'))?.replace(/\s+/g, ' ').trim();
  // the page's own reads may have filled the session's window a moment ago: wait it out as the page does
  const usage = await page.evaluate(async (url) => {
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(url);
      if (res.status !== 429 || attempt === 4) return res.json();
      await new Promise((resolve) => setTimeout(resolve, 1000 * Math.max(1, Number(res.headers.get('retry-after')))));
    }
  }, `/app/api/workspaces/${w.workspaces.pro}/usage`);
  assert.equal(typeof usage.events_used, 'number', JSON.stringify(usage));
  assert.equal(usage.events_included, 1_000_000, 'a pro workspace includes a million events a month');
  const n = new Intl.NumberFormat('en');
  assert.equal(shown, `${n.format(usage.events_used)} of ${n.format(usage.events_included)} included`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('screenshots of the dashboard and the settings in light and dark at 1400 and 375 px', { skip, timeout: 400_000 }, async () => {
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
