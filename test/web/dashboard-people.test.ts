// People in the dashboard, in Chromium on a real server: an invitation made through the management API
// leads, through its page and a password, to the workspace's dashboards; a viewer sees no settings (no
// link, and the pages say in words that they are not for the role); a free workspace sees its own
// surfaces and upgrade notes where the others would be, never errors; a new site waits for its first
// event with the script tag to copy, and turns live when a page carrying that tag is visited. The sign-in
// form's hint for a missing email is titled as a hint, not as a failed read.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { assertTilesMatch, tilesOf } from './dashboard-compare.js';
import path from 'node:path';
import { axeViolations, dashboardWorld, missing, PASSWORD, SCREENSHOTS, settled, skip, type DashboardWorld } from './dashboard-world.js';
import { twoWidths } from './two-widths.js';

let w: DashboardWorld;
before(async () => {
  if (!skip) w = await dashboardWorld();
});
after(async () => {
  await w?.close();
});

/** A person's browser (the headless agent is a bot, and is counted as one). */
const DESKTOP = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

test('an invitation leads through its page and a password to the dashboard of the workspace', { skip, timeout: 120_000 }, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const owner = await w.session('owner');
  const res = await fetch(w.url(`/app/api/workspaces/${w.workspaces.pro}/invitations`), {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: `footfall_session=${owner.cookie}`, 'x-csrf-token': owner.csrf },
    body: JSON.stringify({ email: 'newcomer@example.com', role: 'viewer' }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  const { invitation_url: link } = (await res.json()) as { invitation_url: string };
  assert.ok(link.startsWith(w.url('/app/invite/')), link);

  const { page, problems, context } = await w.open(link, { as: null });
  await page.waitForSelector('input[name=password]');
  assert.match((await page.textContent('form'))!, /invites newcomer@example\.com to join Dashboard example as a viewer/);
  assert.equal(await page.textContent('form h1'), 'Join Dashboard example');
  assert.deepEqual(await axeViolations(page), [], 'the invitation page');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'invite-new-account.png'), fullPage: true });
  await twoWidths(page, 'invite-new-account');
  await page.fill('input[name=name]', 'Newcomer');
  await page.fill('input[name=password]', PASSWORD);
  await page.click('button[type=submit]');
  await page.waitForURL((u) => u.pathname === '/app');
  await page.waitForSelector('.site-list a');
  assert.equal(await page.textContent('.who .muted'), 'newcomer@example.com');
  assert.deepEqual(await page.$$eval('.site-list a', (a) => a.map((x) => x.textContent)), [
    'Extended example',
    'Strict example',
    'New site',
  ]);
  await page.click('.site-list a:has-text("Extended example")');
  await page.waitForURL((u) => u.pathname === `/app/sites/${w.sites.extended}`);
  await settled(page);
  await assertTilesMatch(w, page, w.sites.extended, {});
  // the link worked once
  const again = await w.open(link, { as: null });
  await again.page.waitForSelector('.problem');
  assert.match((await again.page.textContent('.problem-message'))!, /invitation|link/i);
  assert.deepEqual(problems, []);
  await again.context.close();
  await context.close();
});

test('an invitation to an email with an account asks for a session of that account, never a password on its page, then joins', {
  skip,
  timeout: 120_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const owner = await w.session('owner');
  const email = w.emails['free-owner'];
  const res = await fetch(w.url(`/app/api/workspaces/${w.workspaces.pro}/invitations`), {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: `footfall_session=${owner.cookie}`, 'x-csrf-token': owner.csrf },
    body: JSON.stringify({ email, role: 'viewer' }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  const { invitation_url: link } = (await res.json()) as { invitation_url: string };

  // Opened by someone else's session: it says whose invitation it is, and offers only to sign out.
  const other = await w.open(link, { as: 'owner' });
  await other.page.waitForSelector('text=sign out, then sign in as');
  assert.equal(await other.page.locator('input[type=password]').count(), 0);
  await other.context.close();

  const { page, problems, context } = await w.open(link, { as: null });
  await page.waitForSelector('input[name=password]');
  const text = (await page.textContent('form'))!;
  assert.match(text, /invites free-owner@example\.com to join Dashboard example as a viewer/);
  assert.match(text, /free-owner@example\.com has a footfall account: sign in as free-owner@example\.com to join\./);
  assert.equal(await page.inputValue('input[name=email]'), email);
  assert.equal(await page.locator('input[name=name]').count(), 0, 'no account to make');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'invite-existing-account.png'), fullPage: true });
  await page.fill('input[name=password]', PASSWORD);
  await page.click('button[type=submit]');
  await page.waitForSelector('button:has-text("Join Dashboard example")');
  await page.click('button:has-text("Join Dashboard example")');
  await page.waitForURL((u) => u.pathname === '/app');
  await page.waitForSelector('.site-list a');
  const workspaces = await page.$$eval('.panel h2', (h) => h.map((x) => x.textContent));
  assert.ok(
    workspaces.some((t) => t?.startsWith('Dashboard example')),
    workspaces.join(' | '),
  );
  assert.deepEqual(problems, []);
  await context.close();
});

test('the sign-in form asks for the email before a reset link, titled as that hint, not as a failed read', {
  skip,
  timeout: 60_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const { page, problems, context } = await w.open(w.url('/app'), { as: null });
  await page.waitForSelector('input[name=email]');
  await page.click('button:has-text("Forgot the password?")');
  await page.waitForSelector('.problem[data-code="EMAIL_NEEDED"]');
  assert.equal(await page.textContent('.problem-title'), 'Enter your email');
  assert.equal(
    await page.textContent('.problem-message'),
    'The link to choose a new password goes to it: type it in the Email field above, then press “Forgot the password?” again.',
  );
  assert.deepEqual(await axeViolations(page), [], 'the sign-in form with the hint');
  await twoWidths(page, 'sign-in-email-needed');
  // a wrong password is a sign-in that failed, said so
  await page.fill('input[name=email]', w.emails.owner);
  await page.fill('input[name=password]', 'not the password at all');
  await page.click('button[type=submit]');
  await page.waitForSelector('.problem[data-code="INVALID_CREDENTIALS"]');
  assert.equal(await page.textContent('.problem-title'), 'Wrong email or password');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a viewer sees no settings but their email reports: no settings link on the sites or the dashboard, the settings pages say why in words', {
  skip,
  timeout: 120_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const { page, problems, context } = await w.open(w.url('/app'), { as: 'viewer' });
  await page.waitForSelector('.site-list a');
  assert.equal(await page.locator('a:has-text("Settings")').count(), 0);
  const reportsPath = `/app/settings/${w.workspaces.pro}/reports`;
  assert.ok(
    (await page.locator('a:has-text("Email reports")').evaluateAll((as) => as.map((a) => a.getAttribute('href')))).includes(reportsPath),
  );
  await page.goto(w.siteUrl(w.sites.extended), { waitUntil: 'load' });
  await settled(page);
  assert.equal(await page.locator('a:has-text("Settings")').count(), 0);
  assert.equal(await page.locator('a.title-link:has-text("Email reports")').getAttribute('href'), reportsPath);
  const asked: string[] = [];
  page.on('request', (r) => asked.push(new URL(r.url()).pathname));
  await page.goto(w.url(`/app/settings/${w.workspaces.pro}/tokens`), { waitUntil: 'load' });
  await page.waitForSelector('.notice');
  assert.equal(await page.textContent('.notice h1'), 'Not allowed');
  assert.match((await page.textContent('.notice'))!, /for the owners and admins of Dashboard example\. Your role there is viewer/);
  assert.equal(await page.locator('.settings-nav').count(), 0);
  assert.ok(!asked.some((p) => p.startsWith('/app/api/') && p.endsWith('/tokens')), `no token list was asked for: ${asked.join(' ')}`);
  // the one section a viewer has: their own email reports
  await page.click('.notice a:has-text("Choose your email reports")');
  await page.waitForURL((u) => u.pathname === reportsPath);
  // this world's server sends no mail: the section says so, where a refusal would have said "Not allowed"
  await page.waitForSelector('[data-code="NO_MAIL"], .site-card[data-site]');
  assert.equal(await page.locator('.notice:has-text("Not allowed")').count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a free workspace sees its own surfaces: numbers, and upgrade notes where the plan has none, never an error; its settings say the same', {
  skip,
  timeout: 120_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const { page, problems, context } = await w.open(w.siteUrl(w.sites.free), { as: 'free-owner' });
  await settled(page);
  const tiles = await tilesOf(page);
  assert.equal(tiles.length, 6);
  assert.ok(
    tiles.every((t) => t.value !== null && t.problem === null),
    JSON.stringify(tiles),
  );
  assert.ok(Number(tiles[0].value) > 0);
  for (const panel of ['actions', 'goals']) assert.equal(await page.locator(`[data-panel="${panel}"] .problem.upgrade`).count(), 1, panel);
  assert.equal(await page.locator('.problem:not(.upgrade)').count(), 0, 'no refusal shown as an error');
  assert.equal(await page.locator('.csv').count(), 0, 'no CSV on a free plan');
  assert.deepEqual(
    await page.$$eval('.chart-panel .segmented button', (b) => b.map((x) => x.textContent)),
    ['Days', 'Weeks', 'Months'],
    'no hourly chart on a free plan',
  );
  assert.equal(await page.locator('.controls label:has-text("Tenant")').count(), 0);
  // past the plan's 60 days one note at the top says so, and the tiles refuse (RETENTION_EXCEEDED) without a number
  await page.selectOption('.date-picker select', '90d');
  await page.waitForURL((u) => u.searchParams.has('from'));
  await settled(page);
  const refused = await tilesOf(page);
  assert.ok(
    refused.every((t) => t.value === null && t.problem !== null),
    JSON.stringify(refused),
  );
  assert.equal(await page.locator('.tile-problem[data-code="RETENTION_EXCEEDED"]').count(), 6);
  assert.match((await page.textContent('.page-note'))!, /This plan keeps 60 days of data: choose a period from/);

  for (const section of ['tokens', 'goals', 'tenants']) {
    await page.goto(w.url(`/app/settings/${w.workspaces.free}/${section}`), { waitUntil: 'load' });
    await page.waitForSelector('.upgrade');
    assert.equal(await page.locator('.create-form').count(), 0, `${section}: nothing to create`);
    assert.equal(await page.locator('.problem:not(.upgrade)').count(), 0, section);
  }
  await page.goto(w.url(`/app/settings/${w.workspaces.free}/sites`), { waitUntil: 'load' });
  await page.waitForSelector('.site-card');
  assert.match((await page.textContent('.section-head'))!, /1 of 3 sites of the plan/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a new site waits for its first event with the script tag to copy, and turns live when a page carrying the tag is visited', {
  skip,
  timeout: 120_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const { page, problems, context } = await w.open(w.siteUrl(w.sites.empty));
  await settled(page);
  await page.waitForSelector('.first-event');
  const tag = await page.textContent('.first-event [data-copy="Script tag"]');
  assert.equal(tag, `<script defer data-domain="new.example" src="${w.url('/js/script.js')}"></script>`);
  assert.equal(await page.locator('.live').count(), 0);
  assert.equal((await tilesOf(page))[0].value, '0');

  // the site's own page with the copied tag in its head, served by the test from another origin on this
  // machine (Chromium lets a page load a script from the loopback address only when it comes from there too)
  const html = `<!doctype html><html><head><title>New</title>${tag}</head><body>Hello</body></html>`;
  const pages = http.createServer((_req, res) => void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html));
  await new Promise<void>((r) => pages.listen(0, '127.0.0.1', r));
  const visitor = await w.browser.newContext({ userAgent: DESKTOP });
  const site = await visitor.newPage();
  await site.goto(`http://127.0.0.1:${(pages.address() as AddressInfo).port}/`, { waitUntil: 'load' });

  await page.waitForSelector('.live[data-visitors="1"]', { timeout: 30_000 });
  assert.equal(await page.locator('.first-event').count(), 0);
  await page.waitForFunction(() => document.querySelector('.tile[data-metric="visitors"]')?.getAttribute('data-value') === '1', undefined, {
    timeout: 10_000,
  });
  await settled(page);
  assert.deepEqual(problems, []);
  await visitor.close();
  await new Promise((r) => pages.close(r));
  await context.close();
});
