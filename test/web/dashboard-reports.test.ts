// Settings > Email reports in Chromium on a real server: with a mailer (a capturing one), the owner ticks
// their weekly report of a site (it shows in the site's list as a member's) and unticks it again, adds an
// outside address for one tenant (told that a confirmation link was mailed, and it was; the row says
// "awaiting confirmation") and removes it; the page passes axe and is screenshot at 1400 and 375 px.
// Without a mailer the section says plainly that the server sends no mail, and offers no control.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { CapturingMailer } from '../http/helpers/capturing-mailer.js';
import { axeViolations, dashboardWorld, missing, skip, type DashboardWorld } from './dashboard-world.js';
import { twoWidths } from './two-widths.js';

const mailer = new CapturingMailer();
let w: DashboardWorld;
before(async () => {
  if (!skip) w = await dashboardWorld({ mailer });
});
after(async () => {
  await w?.close();
});

const reports = () => w.url(`/app/settings/${w.workspaces.pro}/reports`);

test('the owner subscribes and unsubscribes themselves, adds an outside address (a confirmation is mailed) and removes it', {
  skip,
  timeout: 120_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const { page, problems, context } = await w.open(reports());
  const card = `article.site-card[data-site="${w.sites.extended}"]`;
  await page.waitForSelector(`${card} .own-reports`);
  assert.equal(await page.locator('article.site-card').count(), 3, 'a card per site');

  const weekly = page.locator(card).getByLabel('Weekly report');
  await weekly.check();
  await page.waitForSelector(`${card} .record:has-text("${w.emails.owner}")`);
  assert.match((await page.textContent(`${card} .record:has-text("${w.emails.owner}")`))!, /Weekly · whole site · member/);
  assert.equal(await weekly.isChecked(), true);
  assert.equal(mailer.sent.length, 0, 'a member’s own address needs no confirmation');

  await page.locator(`${card} input[name=email]`).fill('Boss@Example.org');
  await page.locator(`${card} select[name=period]`).selectOption('month');
  await page.locator(`${card} select[name=tenant_id]`).selectOption(w.tenants.acme);
  await page.locator(`${card} button:has-text("Add the address")`).click();
  await page.waitForSelector(`${card} .done`);
  assert.match((await page.textContent(`${card} .done`))!, /A confirmation link was mailed to boss@example\.org/);
  const row = `${card} .record:has-text("boss@example.org")`;
  await page.waitForSelector(row);
  assert.match((await page.textContent(row))!, /Monthly · Acme · awaiting confirmation/);
  assert.equal(mailer.sent.length, 1);
  assert.deepEqual([mailer.sent[0].to].flat(), ['boss@example.org']);

  assert.deepEqual(await axeViolations(page), []);
  await twoWidths(page, 'settings-reports');

  await page.click(`${row} button:has-text("Remove")`);
  await page.click(`${row} .confirm button:has-text("Yes, remove")`);
  await page.waitForSelector(row, { state: 'detached' });

  // by keyboard: focus the checkbox and press space
  await weekly.focus();
  await page.keyboard.press('Space');
  await page.waitForSelector(`${card} .record:has-text("${w.emails.owner}")`, { state: 'detached' });
  assert.equal(await weekly.isChecked(), false);
  assert.match((await page.textContent(card))!, /Nobody gets the reports/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('without mail the section says so and offers nothing to change', { skip, timeout: 120_000 }, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const bare = await dashboardWorld();
  try {
    const { page, problems, context } = await bare.open(bare.url(`/app/settings/${bare.workspaces.pro}/reports`));
    await page.waitForSelector('[data-code="NO_MAIL"]');
    assert.match((await page.textContent('[data-code="NO_MAIL"]'))!, /This server sends no mail.*FOOTFALL_SMTP_URL/s);
    assert.equal(await page.locator('#reports-title ~ * input, #reports-title ~ * button').count(), 0);
    assert.equal(await page.locator('.settings-section input, .settings-section button').count(), 0, 'no controls');
    assert.deepEqual(await axeViolations(page), []);
    await twoWidths(page, 'settings-reports-no-mail');
    assert.deepEqual(problems, []);
    await context.close();
  } finally {
    await bare.close();
  }
});
