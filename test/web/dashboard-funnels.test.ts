// Funnels in Chromium on a real server: in Settings > Funnels the owner is refused a one-step funnel (the
// API's 422 inside the form), saves a two-step one of pages the world's visits see, renames it, and on the
// site's dashboard picks it and reads each step's visitors as POST /app/api/api/v2/funnel answers them
// for the same range (and again after the period changes); then deletes it, and the panel says there are
// none, with the way to Settings. axe is clean on both pages; screenshots at 1400 and 375 px.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { axeViolations, dashboardWorld, missing, SCREENSHOTS, settled, skip, type DashboardWorld } from './dashboard-world.js';
import { twoWidths } from './two-widths.js';

let w: DashboardWorld;
before(async () => {
  if (!skip) w = await dashboardWorld();
});
after(async () => {
  await w?.close();
});

const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

/** A POST under /app/api from the page, with the session's CSRF token, as the dashboard sends it: status and JSON. */
function postInPage(page: Page, route: string, body: object): Promise<{ status: number; json: any }> {
  return page.evaluate(
    async ([route, body]) => {
      const session = await (await fetch('/app/api/session', { credentials: 'same-origin' })).json();
      const res = await fetch(`/app/api${route}`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf_token },
        body: JSON.stringify(body),
      });
      return { status: res.status, json: await res.json() };
    },
    [route, body] as const,
  );
}

/** The panel's rows: each step's visitors (exact, from data-visitors). */
const panelVisitors = (page: Page) =>
  page.$$eval('[data-panel="funnels"] tbody tr', (rows) => rows.map((r) => Number(r.getAttribute('data-visitors'))));

test('the owner saves, renames and deletes a funnel; the dashboard shows its steps as the funnel API answers them', {
  skip,
  timeout: 120_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const site = w.sites.extended;
  const settings = w.url(`/app/settings/${w.workspaces.pro}/funnels`);
  const { page, problems, context } = await w.open(settings);
  const form = page.locator('form.funnel-form');
  await form.waitFor();
  const siteBlock = `.funnel-site[data-site="${site}"]`;
  await page.waitForSelector(`${siteBlock} .empty`);

  // one step: the API's refusal, in the form
  await form.locator('select[name=site_id]').selectOption(site);
  await form.getByLabel('Name', { exact: true }).fill('Pricing to docs');
  await form.getByLabel('Step 1: page path').fill('/pricing');
  await form.getByRole('button', { name: 'Remove step 2' }).click();
  assert.equal(await form.locator('.step-row').count(), 1);
  await form.getByRole('button', { name: 'Save the funnel' }).click();
  const refusal = form.locator('.problem[data-code="INVALID_PARAMS"]');
  await refusal.waitFor();
  assert.match((await refusal.textContent())!, /steps: it needs at least 2 items/);
  assert.equal(await page.locator(`${siteBlock} .record`).count(), 0, 'nothing saved');

  // two steps: saved, listed under its site
  await form.getByRole('button', { name: 'Add a step' }).click();
  await form.getByLabel('Step 2: page path').fill('/docs*');
  await form.getByRole('button', { name: 'Save the funnel' }).click();
  const record = page.locator(`${siteBlock} .record`);
  await record.waitFor();
  assert.equal(await record.locator('.funnel-name').textContent(), 'Pricing to docs');
  assert.equal(await record.locator('.funnel-steps').textContent(), 'page /pricing → page /docs*');
  assert.equal(await form.locator('.problem').count(), 0, 'the refusal is gone');
  const funnelId = (await record.getAttribute('data-funnel'))!;

  // renamed in the same form
  await record.getByRole('button', { name: 'Edit Pricing to docs' }).click();
  await page.getByRole('heading', { name: 'Edit the funnel Pricing to docs' }).waitFor();
  assert.equal(await form.getByLabel('Step 2: page path').inputValue(), '/docs*');
  await form.getByLabel('Name', { exact: true }).fill('Pricing, then docs');
  await form.getByRole('button', { name: 'Save the changes' }).click();
  await page.waitForSelector(`${siteBlock} .funnel-name:text-is("Pricing, then docs")`);
  await page.getByRole('heading', { name: 'Add a funnel' }).waitFor();

  // a second funnel of the site, saved over the API: the panel shows the first, and the person picks this one
  const other = await postInPage(page, `/workspaces/${w.workspaces.pro}/funnels`, {
    site_id: site,
    name: 'Home to pricing',
    steps: [{ page: '/' }, { page: '/pricing' }, { event: 'Signup' }],
  });
  assert.equal(other.status, 201, JSON.stringify(other.json));
  await page.reload();
  await page.waitForSelector(`${siteBlock} .record >> nth=1`);
  assert.deepEqual(await axeViolations(page), []);
  await twoWidths(page, 'settings-funnels');

  // the dashboard: pick the renamed funnel, numbers as the funnel API answers them
  const range = { from: addDays(w.today, -29), to: w.today };
  const dash = await context.newPage();
  await dash.goto(w.siteUrl(site, range));
  await settled(dash);
  const panel = dash.locator('[data-panel="funnels"]');
  await panel.locator('tbody tr').first().waitFor();
  await panel.getByLabel('Funnel').selectOption({ label: 'Pricing, then docs' });
  await dash.waitForFunction(() => document.querySelectorAll('[data-panel="funnels"] tbody tr').length === 2);
  await settled(dash);
  const expected = async (from: string, to: string) => {
    const a = await postInPage(dash, '/api/v2/funnel', { site_id: site, date_range: [from, to], funnel_id: funnelId });
    assert.equal(a.status, 200, JSON.stringify(a.json));
    return a.json.steps as { visitors: number; conversion_rate: number; dropoff: number }[];
  };
  const steps = await expected(range.from, range.to);
  assert.ok(steps[0].visitors > steps[1].visitors && steps[1].visitors > 0, `numbers to compare: ${JSON.stringify(steps)}`);
  assert.deepEqual(
    await panelVisitors(dash),
    steps.map((s) => s.visitors),
  );
  const second = panel.locator('tbody tr[data-step="2"]');
  assert.match((await second.locator('th').textContent())!, /2\.\s*page \/docs\*/);
  assert.match((await second.textContent())!, new RegExp(`${steps[1].conversion_rate}%`));
  assert.deepEqual(await axeViolations(dash), []);
  await twoWidths(dash, 'dashboard-funnels');
  for (const width of [1400, 375]) {
    await dash.setViewportSize({ width, height: 900 });
    await panel.screenshot({ path: path.join(SCREENSHOTS, `funnel-panel-${width}.png`) });
  }
  await dash.setViewportSize({ width: 1400, height: 900 });

  // a shorter period: read again
  await dash.selectOption('.date-picker select', '7d');
  await dash.waitForURL((u) => u.searchParams.get('from') === addDays(w.today, -6));
  await settled(dash);
  const week = await expected(addDays(w.today, -6), w.today);
  await dash.waitForFunction(
    (want) => [...document.querySelectorAll('[data-panel="funnels"] tbody tr')].map((r) => r.getAttribute('data-visitors')).join() === want,
    week.map((s) => s.visitors).join(),
  );

  // deleted, with a confirmation first
  for (const name of ['Pricing, then docs', 'Home to pricing']) {
    const row = page.locator(`${siteBlock} .record`, { hasText: name });
    await row.getByRole('button', { name: 'Delete' }).click();
    await row.getByRole('button', { name: 'Yes, delete' }).click();
    await row.waitFor({ state: 'detached' });
  }
  await page.waitForSelector(`${siteBlock} .empty`);
  await dash.reload();
  await settled(dash);
  const empty = panel.locator('.empty');
  await empty.waitFor();
  assert.match((await empty.textContent())!, /No funnels yet/);
  assert.equal(await empty.locator('a').getAttribute('href'), `/app/settings/${w.workspaces.pro}/funnels`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a viewer with no funnels is told so in plain words, with no link to settings', { skip, timeout: 60_000 }, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const { page, problems, context } = await w.open(w.siteUrl(w.sites.strict), { as: 'viewer' });
  await settled(page);
  const empty = page.locator('[data-panel="funnels"] .empty');
  await empty.waitFor();
  assert.match((await empty.textContent())!, /No funnels yet\. An owner or admin/);
  assert.equal(await empty.locator('a').count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});
