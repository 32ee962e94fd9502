// The mailed report's HTML (src/services/report-mail/report-message.ts) in Chromium, as a mail client's
// web view shows it: at 600 px (a desktop client's reading pane) and 375 px (a phone) axe-core finds nothing
// serious, nothing is wider than a phone, nothing is fetched, the five figures sit in one row where there is
// room and wrap where there is not, and both links go where the data says. Screenshots to
// test-results/screenshots/report-mail-<name>-<width>.png for a person to look at.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import type { ReportData } from '../../src/services/report-mail/report-data.js';
import { reportMessage } from '../../src/services/report-mail/report-message.js';
import { axeViolations, CHROMIUM, missing, SCREENSHOTS, skip } from './dashboard-world.js';

const HOSTILE = '/a<script>&"\'';
const WEEK: ReportData = {
  siteName: 'Café Crème – shop.example',
  tenantName: null,
  period: { period: 'week', from: '2026-11-16', to: '2026-11-22', dueMs: Date.UTC(2026, 10, 22, 23) },
  timezone: 'Europe/Paris',
  totals: {
    visitors: { value: 184_233, previous: 164_120, change: 12.3 },
    visits: { value: 231_907, previous: 240_118, change: -3.4 },
    pageviews: { value: 1_024_554, previous: 998_002, change: 2.7 },
    bounce_rate: { value: 41.5, previous: 44.5, change: -3 },
    visit_duration: { value: 3_725, previous: null, change: null },
  },
  pages: [
    { name: '/', visitors: 90_112 },
    { name: '/blog/2026/11/how-we-count-visitors-without-cookies-and-why-it-matters-for-your-privacy-policy', visitors: 21_005 },
    { name: '/produits/crème-brûlée?ref=newsletter&utm_campaign=automne', visitors: 9_870 },
    { name: '/日本語/ページ/とても長いパスの名前がここに続きますとても長いパスの名前がここに続きます', visitors: 1_204 },
    { name: HOSTILE, visitors: 3 },
  ],
  sources: [
    { name: 'Google', visitors: 80_211 },
    { name: 'news.ycombinator.com', visitors: 12_090 },
    { name: 'Newsletter', visitors: 4_410 },
    { name: 'DuckDuckGo', visitors: 2_001 },
    { name: 'github.com', visitors: 990 },
  ],
  countries: [
    { name: 'United States', visitors: 60_001 },
    { name: 'Germany', visitors: 30_450 },
    { name: 'France', visitors: 22_310 },
    { name: 'Côte d’Ivoire', visitors: 1_870 },
    { name: 'Japan', visitors: 1_204 },
  ],
  goals: [
    { goal: 'Signup', visitors: 1_220, events: 1_310, conversionRate: 0.66 },
    { goal: 'Reached the annual plan checkout page from a newsletter', visitors: 310, events: 402, conversionRate: 0.17 },
    { goal: 'Téléchargé le catalogue', visitors: 95, events: 95, conversionRate: 0.05 },
  ],
  dashboardUrl: 'https://footfall.example/app/sites/s_4f2a?from=2026-11-16&to=2026-11-22',
  unsubscribeUrl: 'https://footfall.example/reports/unsubscribe/rs_9c1e?token=k3Jd-88xQ&v=1',
};

const MONTH: ReportData = {
  ...WEEK,
  siteName: 'shop.example',
  tenantName: 'Acme Corporation (Zürich)',
  period: { period: 'month', from: '2026-11-01', to: '2026-11-30', dueMs: Date.UTC(2026, 10, 30, 23) },
  totals: {
    visitors: { value: 812, previous: 0, change: null },
    visits: { value: 1_003, previous: 0, change: null },
    pageviews: { value: 2_950, previous: 0, change: null },
    bounce_rate: { value: 38, previous: 0, change: 38 },
    visit_duration: { value: 65, previous: 0, change: null },
  },
  // a tenant's first month: direct visits only, no goal reached yet
  pages: [
    { name: '/acme/welcome', visitors: 640 },
    { name: '/acme/überblick/preise-und-konditionen-für-unternehmen-mit-mehr-als-250-mitarbeitenden', visitors: 201 },
    { name: '/acme/%E2%9C%93/done', visitors: 12 },
  ],
  sources: [],
  countries: [
    { name: 'Switzerland', visitors: 590 },
    { name: 'Germany', visitors: 170 },
    { name: 'Liechtenstein', visitors: 9 },
  ],
  goals: [],
};

const MESSAGES = [
  { name: 'week', data: WEEK },
  { name: 'month-tenant', data: MONTH },
];

let browser: Browser;
before(async () => {
  if (skip) return;
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
});
after(async () => {
  await browser?.close();
});

for (const { name, data } of MESSAGES) {
  test(`the ${name} report's HTML reads well at 600 and 375 px`, { skip, timeout: 60_000 }, async () => {
    if (missing) assert.fail(`CI needs Chromium for the web tests: ${missing}`);
    const message = reportMessage('owner@example.com', data);
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    for (const width of [600, 375]) {
      const context = await browser.newContext({ viewport: { width, height: 800 }, colorScheme: 'light', javaScriptEnabled: true });
      try {
        const page = await context.newPage();
        const fetched: string[] = [];
        await page.route('**/*', (route) => {
          fetched.push(route.request().url());
          return route.abort();
        });
        await page.setContent(message.html, { waitUntil: 'load' });
        assert.deepEqual(fetched, [], 'opening the mail fetches nothing');
        assert.deepEqual(await axeViolations(page), [], `axe at ${width} px`);
        const wide = await page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(wide <= width + 1, `${name}: ${wide} px wide at ${width} px`);
        // every cell's text lies inside the page: a long path wraps rather than running off the card
        const clipped = await page.$$eval('td, th, h1, h2, p', (els) =>
          els.filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent?.slice(0, 40)),
        );
        assert.deepEqual(clipped, [], 'no text overflows its box');
        const tops = await page.$$eval('td > div[style*="inline-block"]', (tiles) => tiles.map((t) => t.getBoundingClientRect().top));
        assert.equal(tops.length, 5, 'five figures');
        assert.equal(new Set(tops).size, width === 600 ? 1 : 2, 'one row of figures at 600 px, two rows on a phone');
        const unsubscribe = page.getByRole('link', { name: 'Unsubscribe' });
        assert.equal(await unsubscribe.getAttribute('href'), data.unsubscribeUrl);
        assert.equal(await page.getByRole('link', { name: 'Open the dashboard' }).getAttribute('href'), data.dashboardUrl);
        assert.equal(await page.title(), message.subject);
        assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), message.subject.slice(0, message.subject.indexOf(': ')));
        // every page path is shown whole, as text: a hostile one is not taken as markup
        assert.equal(await page.locator('script').count(), 0);
        const cells = await page.$$eval('td', (tds) => tds.map((td) => td.textContent));
        for (const row of data.pages) assert.ok(cells.includes(row.name), row.name);
        await page.screenshot({ path: path.join(SCREENSHOTS, `report-mail-${name}-${width}.png`), fullPage: true });
      } finally {
        await context.close();
      }
    }
  });
}
