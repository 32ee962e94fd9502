// Two-factor sign-in in Chromium on a real server: on the account page the person turns it on (the QR
// code and the key shown, a code of the key and the password confirm it), sees the ten recovery codes
// once, signs out, and signs in again with the password then a code (autocomplete="one-time-code").
// axe-clean at each step; screenshots at 1400 and 375 px of the setup, the codes and the code step.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { HOTP, Secret } from 'otpauth';
import { stepAt } from '../../src/domain/two-factor.js';
import { TEST_HASHER } from '../http/helpers/harness.js';
import { axeViolations, dashboardWorld, missing, PASSWORD, skip, type DashboardWorld } from './dashboard-world.js';
import { twoWidths } from './two-widths.js';

const EMAIL = 'two-factor@example.com';
let w: DashboardWorld;
before(async () => {
  if (skip) return;
  w = await dashboardWorld();
  const people = w.server.container.people!;
  const user = await people.createUser({ email: EMAIL, name: 'Careful Person', passwordHash: await TEST_HASHER.hash(PASSWORD) });
  await people.addMember({ workspaceId: w.workspaces.pro, userId: user.id, role: 'viewer' });
});
after(async () => {
  await w?.close();
});

/** The code of the key for the step `offset` steps from now (the server runs on the real clock). */
const codeOf = (key: string, offset = 0) => HOTP.generate({ secret: Secret.fromBase32(key), counter: stepAt(Date.now()) + offset });

test('two-factor sign-in: turned on in the account page with the QR code or key, recovery codes shown once, then signing in asks for the code', {
  skip,
  timeout: 90_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const { page, problems, context } = await w.open(w.url('/app'), { as: null });
  await page.getByLabel('Email').fill(EMAIL);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.click('form button[type=submit]:has-text("Sign in")');
  await page.waitForSelector('.who a');
  await page.goto(w.url('/app/account'));
  await page.waitForSelector('#two-factor-title');

  // turning it on: the QR code and the key
  await page.click('button:has-text("Turn on two-factor sign-in")');
  await page.waitForSelector('svg.qr-code path');
  const key = (await page.textContent('.totp-secret'))!.replace(/\s/g, '');
  assert.match(key, /^[A-Z2-7]{32}$/);
  assert.equal(await page.getAttribute('svg.qr-code', 'role'), 'img');
  const setup = page.locator('form[aria-label="Turn on two-factor sign-in"]');
  assert.equal(await setup.getByLabel('6-digit code from the app').getAttribute('autocomplete'), 'one-time-code');
  assert.deepEqual(await axeViolations(page), []);
  await twoWidths(page, 'two-factor-setup');

  // a wrong code first: refused in words, still off
  await setup.getByLabel('Your password').fill(PASSWORD);
  await setup.getByLabel('6-digit code from the app').fill(codeOf(key, 10));
  await setup.locator('button[type=submit]').click();
  await page.waitForSelector('form[aria-label="Turn on two-factor sign-in"] .problem');
  assert.match((await page.textContent('form[aria-label="Turn on two-factor sign-in"] .problem'))!, /Not turned on.*Wrong code/);
  await setup.getByLabel('6-digit code from the app').fill(codeOf(key));
  await setup.locator('button[type=submit]').click();

  // the recovery codes, once
  await page.waitForSelector('.recovery-codes');
  assert.match((await page.textContent('.recovery-codes'))!, /shown only this once/);
  const codes = await page.locator('.code-list code').allTextContents();
  assert.equal(codes.length, 10);
  assert.deepEqual(await axeViolations(page), []);
  await twoWidths(page, 'two-factor-codes');
  await page.click('button:has-text("I have kept them")');
  await page.waitForSelector('text=Two-factor sign-in is on.');
  assert.match((await page.textContent('section[aria-labelledby="two-factor-title"]'))!, /10 of your recovery codes are unused/);
  assert.equal(await page.locator('.recovery-codes').count(), 0, 'the codes are gone from the page');
  await twoWidths(page, 'two-factor-on');

  // sign out, then sign in: the password, then the code
  await page.click('button:has-text("Sign out")');
  await page.waitForSelector('input[type=password]');
  await page.getByLabel('Email').fill(EMAIL);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.click('form button[type=submit]:has-text("Sign in")');
  const step = page.locator('form[aria-label="Two-factor sign-in"]');
  await step.waitFor();
  const input = step.getByLabel('Code from the app, or a recovery code');
  assert.equal(await input.getAttribute('autocomplete'), 'one-time-code');
  assert.equal(await page.locator('.who a').count(), 0, 'not signed in before the code');
  assert.deepEqual(await axeViolations(page), []);
  await twoWidths(page, 'two-factor-sign-in');
  // the code that turned it on is spent: the next step's code (or, at a step's edge, the one after)
  await input.fill(codeOf(key, 1));
  await step.locator('button[type=submit]').click();
  await page.waitForSelector('.who a');
  assert.match((await page.locator('.who a').textContent())!, new RegExp(EMAIL));
  assert.deepEqual(problems, []);
  await context.close();
});
