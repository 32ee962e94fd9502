// Embeds and share links in Chromium against a real server: a SaaS page on another loopback origin frames
// /embed for tenant acme and sees acme's numbers (equal to the query API with the parent token naming acme) and
// nothing of globex, sized by the height the embed posts; a page on an origin the key does not list cannot
// frame it; an expired token says so and a fresh one handed over by postMessage brings the numbers back;
// an API token in the fragment is refused unused; a share link asks its password, then shows its tenant.
// Both pages send their reads as one batch (/embed/api/reads, /share/<slug>/api/reads), not one request
// each. axe-core on every page; screenshots (light and dark) to test-results/screenshots/.
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { axeViolations, missing, SCREENSHOTS, settled, skip } from './dashboard-world.js';
import { twoWidths } from './two-widths.js';
import { ADMIN, embedWorld, SHARE_PASSWORD, tileValues, type EmbedWorld } from './embed-world.js';

let w: EmbedWorld;
before(async () => {
  if (!skip) w = await embedWorld();
});
after(async () => {
  await w?.close();
});

const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

const TILE_METRICS = ['visitors', 'visits', 'pageviews', 'views_per_visit', 'bounce_rate', 'visit_duration'];

/** The six tiles equal the query API's totals for the tenant over the default period (the last 30 days; the site is in UTC). */
async function assertTenantTiles(where: Page | Frame, tenant: string): Promise<void> {
  const tiles = await tileValues(where);
  assert.deepEqual(Object.keys(tiles), TILE_METRICS);
  const r = await w.v2({ site_id: w.site, tenant_id: tenant, metrics: TILE_METRICS, date_range: [addDays(w.today, -29), w.today] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  for (const [i, metric] of TILE_METRICS.entries()) assert.equal(tiles[metric], r.body.results[0].metrics[i], `${metric} tile`);
}

/**
 * The requests a page sends for its reads from now on: those to a read route itself (`readPrefix` then
 * /v1/... or /api/v2/...: '' for an embed, /share/<slug>/api for a share link) and those to its batch.
 * `report` says the counts (the test's diagnostics).
 */
function countReads(
  page: Page,
  readPrefix: string,
  batchPath: string,
): { reads: string[]; batches: string[]; report(t: TestContext, what: string): void } {
  const reads: string[] = [];
  const batches: string[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.origin !== w.server.address) return;
    if (url.pathname.startsWith(`${readPrefix}/v1/`) || url.pathname.startsWith(`${readPrefix}/api/v2/`)) reads.push(url.pathname);
    else if (url.pathname === batchPath) batches.push(url.pathname);
  });
  return {
    reads,
    batches,
    report: (t, what) =>
      t.diagnostic(`${what}: ${reads.length + batches.length} requests for reads (${batches.length} batches, ${reads.length} reads alone)`),
  };
}

/** A page load sends its reads as batches: at least one, and at most a couple of reads alone. */
function assertBatched(count: { reads: string[]; batches: string[] }, what: string): void {
  assert.ok(count.batches.length >= 1, `${what}: no batch request (reads alone: ${count.reads.join(', ')})`);
  assert.ok(count.reads.length <= 2, `${what}: ${count.reads.length} reads sent alone: ${count.reads.join(', ')}`);
}

async function embedFrame(page: Page): Promise<Frame> {
  const frame = await (await page.waitForSelector('iframe#analytics')).contentFrame();
  assert.ok(frame, 'the iframe has a frame');
  return frame;
}

test("a host page on another origin frames the embed of tenant acme: acme's numbers, none of globex's, the iframe sized to its content", {
  skip,
  timeout: 120_000,
}, async (t) => {
  if (missing) assert.fail(`CI needs Chromium for the embed tests: ${missing}`);
  const { context, page, console } = await w.newPage();
  const count = countReads(page, '', '/embed/api/reads');
  await page.goto(`${w.host.origin}/?tenant=acme`);
  const frame = await embedFrame(page);
  await settled(frame);
  await page.waitForTimeout(1000); // a panel that reads after the first numbers are in
  count.report(t, 'one embed page load');
  assertBatched(count, 'the embed page');
  await assertTenantTiles(frame, w.tenants.acme);
  const text = await frame.textContent('main');
  assert.match(text ?? '', /acme-home/);
  assert.doesNotMatch(text ?? '', /globex/i, 'nothing of the other tenant');
  const pages = await frame.$$eval('[data-panel="pages"] .rows li', (items) => items.map((li) => li.getAttribute('data-key')));
  assert.ok(pages.length > 0 && pages.every((p) => p?.startsWith('/acme-')), pages.join());
  const globex = await w.v2({
    site_id: w.site,
    tenant_id: w.tenants.globex,
    metrics: ['visitors'],
    date_range: [addDays(w.today, -29), w.today],
  });
  assert.notEqual((await tileValues(frame)).visitors, globex.body.results[0].metrics[0], 'the fixture tells the tenants apart');
  // the token left the frame's address at once
  assert.equal(new URL(frame.url()).hash, '');
  // the host sized the iframe from the height messages: all of the dashboard, no scroll bar inside
  await page.waitForFunction(() => {
    const heights = (window as unknown as { heights: number[] }).heights;
    const iframe = document.querySelector('iframe')!;
    return heights.length > 0 && iframe.getBoundingClientRect().height === heights[heights.length - 1];
  });
  const height = await page.$eval('iframe', (f) => f.getBoundingClientRect().height);
  assert.ok(height > 900, `the iframe grew to its content: ${height}px`);
  const inner = await frame.evaluate(() => document.documentElement.scrollHeight);
  assert.ok(inner <= height + 1, `no scrolling inside the frame: ${inner} > ${height}`);
  assert.deepEqual(
    console.filter((m) => /Refused|Content Security Policy|pageerror/.test(m)),
    [],
  );
  await shot(page, 'embed-host-light');
  await context.close();
});

test('a page on an origin the embed key does not list cannot frame it: Chromium refuses by frame-ancestors', {
  skip,
  timeout: 60_000,
}, async () => {
  const { context, page, console } = await w.newPage();
  await page.goto(`${w.stranger.origin}/?tenant=acme`);
  const frame = await embedFrame(page);
  await page.waitForTimeout(1500);
  assert.ok(!frame.url().startsWith(w.server.address), `the frame did not load the embed: ${frame.url()}`);
  assert.equal(await frame.$('.dashboard, #app').catch(() => null), null, 'nothing of the embed in the frame');
  assert.ok(
    console.some((m) => /frame-ancestors/.test(m)),
    `Chromium says why: ${console.join(' | ')}`,
  );
  assert.deepEqual(await page.evaluate(() => (window as unknown as { heights: number[] }).heights), [], 'no message from it');
  await context.close();
});

test('an expired token shows the message and tells the host; a fresh token handed over by postMessage brings the numbers back', {
  skip,
  timeout: 120_000,
}, async () => {
  const { context, page } = await w.newPage();
  await page.goto(`${w.host.origin}/?tenant=acme&stale=1`);
  const frame = await embedFrame(page);
  await frame.waitForSelector('text=This view has expired', { timeout: 20_000 });
  await page.waitForFunction(() => (window as unknown as { expired: number }).expired >= 1);
  assert.equal(await frame.$('.dashboard'), null, 'no numbers under an expired token');
  assert.deepEqual(await axeViolations(frame), []);
  await shot(page, 'embed-expired-light');
  await page.evaluate(() => (window as unknown as { refresh(): Promise<void> }).refresh());
  await settled(frame);
  await assertTenantTiles(frame, w.tenants.acme);
  await context.close();
});

test('an API token in the fragment is refused without a single request made with it', { skip, timeout: 60_000 }, async () => {
  const { context, page } = await w.newPage();
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  const apiToken = 'ff_live_' + 'A'.repeat(38);
  await page.goto(`${w.server.address}/embed?key=ek_whatever#token=${apiToken}`);
  await page.waitForSelector('text=An API token cannot be used here');
  assert.equal(new URL(page.url()).hash, '', 'gone from the address too');
  assert.deepEqual(
    requests.filter((u) => u.includes('/v1/') || u.includes('/api/v2/') || u.includes('/embed/api/')),
    [],
  );
  assert.deepEqual(await axeViolations(page), []);
  await context.close();
});

test('the embed page alone, light and dark by theme= and an accent, at 1280 and 375 px: axe finds nothing serious', {
  skip,
  timeout: 180_000,
}, async () => {
  for (const theme of ['light', 'dark'] as const) {
    for (const width of [1280, 375]) {
      const { context, page, console } = await w.newPage({ width, scheme: theme === 'dark' ? 'light' : 'dark' });
      await page.goto(
        w.embedUrl(w.mint(w.tenants.globex), { theme, accent: theme === 'dark' ? 'f59e0b' : '7c3aed', compare: 'prev_period' }),
      );
      await settled(page);
      await assertTenantTiles(page, w.tenants.globex);
      assert.equal(await page.getAttribute('html', 'data-theme'), theme, 'the query fixes the scheme over the browser preference');
      assert.deepEqual(await axeViolations(page), [], `${theme} ${width}`);
      assert.deepEqual(
        console.filter((m) => /Refused|Content Security Policy|pageerror/.test(m)),
        [],
      );
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `${theme} ${width}: ${overflow}px wider than the page`);
      await shot(page, `embed-tenant-${theme}-${width}`);
      await context.close();
    }
  }
});

test('a share link with a password: the form, a wrong password refused, then the dashboard of its tenant', {
  skip,
  timeout: 120_000,
}, async (t) => {
  for (const scheme of ['light', 'dark'] as const) {
    const { context, page, console } = await w.newPage({ scheme });
    await page.goto(`${w.server.address}${w.sharePath}`);
    await page.waitForSelector('input[name=password]');
    assert.deepEqual(await axeViolations(page), [], `form ${scheme}`);
    if (scheme === 'light') {
      await page.fill('input[name=password]', 'not the password');
      await page.click('button[type=submit]');
      await page.waitForSelector('text=Wrong password');
      await shot(page, 'share-password-light');
    }
    await page.fill('input[name=password]', SHARE_PASSWORD);
    // the right password reloads the page, open now: its reads from there on
    const count = countReads(page, `${w.sharePath}/api`, `${w.sharePath}/api/reads`);
    await page.click('button[type=submit]');
    await settled(page);
    await page.waitForTimeout(1000); // a panel that reads after the first numbers are in
    count.report(t, `one open share page load (${scheme})`);
    assertBatched(count, `the share page (${scheme})`);
    await assertTenantTiles(page, w.tenants.acme);
    // the site's saved funnel, for the link's tenant, as POST /api/v2/funnel answers it
    const funnel = await w.v2(
      {
        site_id: w.site,
        tenant_id: w.tenants.acme,
        date_range: [addDays(w.today, -29), w.today],
        steps: [{ page: '/*-home' }, { page: '/*-pricing' }],
      },
      '/api/v2/funnel',
    );
    assert.equal(funnel.status, 200, JSON.stringify(funnel.body));
    assert.ok(funnel.body.steps[1].visitors > 0, 'some visitors go on to pricing');
    assert.deepEqual(
      await page.$$eval('[data-panel="funnels"] tbody tr', (rows) => rows.map((r) => Number(r.getAttribute('data-visitors')))),
      funnel.body.steps.map((st: { visitors: number }) => st.visitors),
    );
    assert.match((await page.textContent('[data-panel="funnels"] select option:checked')) ?? '', /Home to pricing/);
    assert.match(await page.title(), /Embedded example/);
    assert.doesNotMatch((await page.textContent('main')) ?? '', /globex/i);
    assert.deepEqual(await axeViolations(page), [], `dashboard ${scheme}`);
    assert.deepEqual(
      console.filter((m) => /Refused|Content Security Policy|pageerror/.test(m)),
      [],
    );
    await shot(page, `share-${scheme}`);
    await context.close();
  }
});

test('the settings section: an admin creates an embed key (its secret shown once) and, in one form, a share link of a tenant picked by name with a last day, and revokes it', {
  skip,
  timeout: 120_000,
}, async () => {
  const { context, page, console } = await w.newPage();
  await page.goto(`${w.server.address}/app`);
  await page.fill('input[name=email]', ADMIN.email);
  await page.fill('input[name=password]', ADMIN.password);
  await page.click('button[type=submit]');
  await page.waitForSelector('a[href^="/app/sites/"]');
  await page.goto(`${w.server.address}/app/settings/${w.workspaceId}/embeds`);
  await page.waitForSelector('#embed-keys-title');
  await page.fill('input[name=origins]', 'https://app.example.com');
  await page.click('button:has-text("Create the key")');
  const secret = await (await page.waitForSelector('code[data-copy="Secret"]')).textContent();
  assert.match(secret ?? '', /^ff_embed_[A-Za-z0-9_-]{43}$/);
  await page.waitForSelector('li[data-embed-key]:has-text("https://app.example.com")');
  const shares = page.locator('section:has(h2:has-text("Share links"))');
  // one form for every site: the site and the tenant are picked by name, the last day from a date input
  assert.equal(await shares.locator('form').count(), 1);
  assert.deepEqual(await shares.locator('label:has(.field-label:text-is("Site")) select option').allTextContents(), ['Embedded example']);
  assert.deepEqual(await shares.locator('label:has(.field-label:text-is("Tenant")) select option').allTextContents(), [
    'The whole site',
    'Acme',
    'Globex',
  ]);
  await shares.locator('label:has(.field-label:text-is("Tenant")) select').selectOption({ label: 'Acme' });
  const lastDay = addDays(w.today, 7);
  await shares.locator('input[type=date]').fill(lastDay);
  await shares.locator('button:has-text("Create the link")').click();
  const url = await shares.locator('code[data-copy="Link"]').textContent();
  assert.match(url ?? '', /\/share\/[0-9A-Za-z]{40}$/);
  assert.equal((await fetch(url!)).status, 200, 'the new link opens');
  // said where the link is shown, and in the list that names links by id from then on
  assert.match(
    (await shares.locator('.done').textContent())!,
    /^Copy the link now: it is not shown again\. Only its hash is kept, so the list above names the link by its id\./,
  );
  await shares.locator('li[data-share]').first().waitFor();
  assert.match(
    (await shares.locator('.note').first().textContent())!,
    /address was shown once, when it was made; to share again, create a new link/,
  );
  assert.deepEqual(await axeViolations(page), []);
  await shot(page, 'settings-embeds-light');
  await twoWidths(page, 'settings-embeds-share-link');
  const created = shares.locator('li[data-share]:has-text("tenant Acme"):has-text("no password")');
  assert.match((await created.textContent())!, /expires /);
  // stored as the tenant's link, working to the end of the chosen day in the browser's time
  const { listed, endOfDay } = await page.evaluate(
    async ([site, day]) => {
      const res = await fetch(`/app/api/sites/${site}/shares`, { headers: { accept: 'application/json' } });
      return {
        listed: (await res.json()) as { shares: { tenant_id: string | null; expires_at: string | null; state: string }[] },
        endOfDay: new Date(`${day}T23:59:59.999`).toISOString(),
      };
    },
    [w.site, lastDay],
  );
  assert.ok(
    listed.shares.some((x) => x.state === 'active' && x.tenant_id === w.tenants.acme && x.expires_at === endOfDay),
    JSON.stringify(listed.shares),
  );
  await created.locator('button:has-text("Revoke")').click();
  await created.locator('button:has-text("Yes, revoke")').click();
  await created.locator('.badge:has-text("Revoked")').waitFor();
  assert.equal((await fetch(url!)).status, 404, 'the revoked link is gone');
  assert.deepEqual(
    console.filter((m) => /Refused|Content Security Policy|pageerror/.test(m)),
    [],
  );
  await context.close();
});
