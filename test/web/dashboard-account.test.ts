// /app/account in Chromium on a real server, as a person of the test's own (the world's people keep
// their sessions for the other tests): the header's email leads there; the person changes their name
// (still there after a reload); a wrong current password is refused in words; signing out everywhere
// leads to the sign-in page and the old cookie no longer reads the session. axe-clean; screenshot at
// 1400 and 375 px.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_HASHER } from '../http/helpers/harness.js';
import { axeViolations, dashboardWorld, missing, PASSWORD, skip, type DashboardWorld } from './dashboard-world.js';
import { twoWidths } from './two-widths.js';

const EMAIL = 'account-owner@example.com';
let w: DashboardWorld;
before(async () => {
  if (skip) return;
  w = await dashboardWorld();
  const people = w.server.container.people!;
  const user = await people.createUser({ email: EMAIL, name: 'Account Owner', passwordHash: await TEST_HASHER.hash(PASSWORD) });
  await people.addMember({ workspaceId: w.workspaces.pro, userId: user.id, role: 'viewer' });
});
after(async () => {
  await w?.close();
});

async function signIn(): Promise<string> {
  const res = await fetch(w.url('/app/api/session'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
  });
  assert.equal(res.status, 200);
  const cookie = /footfall_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
  assert.ok(cookie);
  return cookie;
}

const sessionStatus = async (cookie: string) =>
  (await fetch(w.url('/app/api/session'), { headers: { cookie: `footfall_session=${cookie}` } })).status;

test('the account page: the header links to it, the name changes, a wrong password is refused in words, sign out everywhere', {
  skip,
  timeout: 60_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const cookie = await signIn();
  const { page, problems, context } = await w.open(w.url('/app'), { as: null });
  await context.addCookies([{ name: 'footfall_session', value: cookie, url: w.server.address }]);
  await page.goto(w.url('/app'));

  // the header's email is the way there
  const link = page.locator('.who a', { hasText: EMAIL });
  await link.waitFor();
  assert.equal(await link.getAttribute('href'), '/app/account');
  await link.click();
  await page.waitForURL('**/app/account');
  await page.waitForSelector('#name-title');
  assert.equal(await page.title(), 'Your account · footfall');

  // the name, kept after a reload
  const name = page.getByLabel('Name (optional, at most 100 characters)');
  assert.equal(await name.inputValue(), 'Account Owner');
  await name.fill('  Ada Lovelace ');
  await page.click('button:has-text("Save the name")');
  await page.waitForSelector('form[aria-label="Your name"] .done');
  assert.match((await page.textContent('form[aria-label="Your name"] .done'))!, /Your name is saved/);
  await page.reload();
  await page.waitForSelector('#name-title');
  assert.equal(await page.getByLabel('Name (optional, at most 100 characters)').inputValue(), 'Ada Lovelace');

  // a wrong current password: the refusal in words, nothing changed
  await page.getByLabel('Current password').fill('not my password at all');
  await page.getByLabel('New password (at least 10 characters)').fill('a new long password');
  await page.getByLabel('New password again').fill('a new long password');
  await page.click('button:has-text("Change the password")');
  const refusal = 'form[aria-label="Change your password"] .problem';
  await page.waitForSelector(refusal);
  assert.match((await page.textContent(refusal))!, /Password not changed.*The current password is not right, so nothing changed/);
  assert.equal(await sessionStatus(cookie), 200, 'a refused change ends no session');

  assert.deepEqual(await axeViolations(page), []);
  await twoWidths(page, 'account');

  // sign out everywhere: asked once more, then the sign-in page; the cookie reads nothing any more
  await page.click('button:has-text("Sign out everywhere")');
  await page.click('.confirm button:has-text("Yes, sign out everywhere")');
  await page.waitForURL((u) => u.pathname === '/app');
  await page.waitForSelector('input[type=password]');
  assert.equal(await sessionStatus(cookie), 401);
  assert.equal(await sessionStatus((await w.session('owner')).cookie), 200, "another person's session stays");
  assert.deepEqual(problems, []);
  await context.close();
});
