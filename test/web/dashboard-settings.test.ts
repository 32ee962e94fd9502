// The settings in Chromium on a real server, by hand as an owner would: a site is created with a domain
// scope, its TXT record shown to copy; verifying before the record exists says so in words, and once the
// test's DNS server holds it the domain is verified; the site is suspended and resumed, and its time zone
// changed and saved (still selected after a reload, the page passing axe); a goal and a tenant
// are added; a token is created (its secret shown once, and it reads /v1), rotated (the old secret stops
// working) and revoked; an invitation's link is shown once (said where it is shown) and its seat counted.
// A pasted address is saved as its hostname, shown before saving; the only owner is offered no demotion
// or removal, and a refusal in a race is said in words inside the layout. Each site's card shows its
// script tag to copy; an owner deletes a spare site after typing its name (a wrong one keeps the button
// disabled), a deletion refused in a race is said in the card, and an admin is offered no deletion.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import { axeViolations, dashboardWorld, missing, SCREENSHOTS, skip, type DashboardWorld } from './dashboard-world.js';
import { twoWidths } from './two-widths.js';

let w: DashboardWorld;
before(async () => {
  if (!skip) w = await dashboardWorld();
});
after(async () => {
  await w?.close();
});

const settings = (section: string) => w.url(`/app/settings/${w.workspaces.pro}/${section}`);
const me = (secret: string) => fetch(w.url('/v1/me'), { headers: { authorization: `Bearer ${secret}` } }).then((r) => r.status);

/** Presses a button that asks first, then confirms. */
async function confirmed(page: Page, scope: string, label: string): Promise<void> {
  await page.click(`${scope} button:has-text("${label}")`);
  await page.click(`${scope} .confirm button:has-text("Yes, ${label.toLowerCase()}")`);
}

test('a site with a domain scope: its TXT record to copy, verify refused in words until DNS holds it, then verified; suspend and resume', {
  skip,
  timeout: 120_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const { page, problems, context } = await w.open(settings('sites'));
  await page.waitForSelector('.site-card');
  await page.fill('input[name=name]', 'Proven');
  await page.fill('input[name=hostnames]', 'www.proven-example.com');
  await page.check('input[name=collection_profile][value=extended]');
  await page.fill('input[name=domain_scope]', 'proven-example.com');
  await page.click('button:has-text("Add the site")');
  await page.waitForSelector('.done [data-copy="Record name"]');
  const name = await page.textContent('.done [data-copy="Record name"]');
  const value = (await page.textContent('.done [data-copy="Record value"]'))!;
  assert.equal(name, '_footfall.proven-example.com');
  assert.match(value, /^footfall-verification=[0-9A-Za-z]{32}$/);
  const card = 'article.site-card:has(h3:has-text("Proven"))';
  await page.waitForSelector(card);
  assert.equal(await page.textContent(`${card} .proof [data-copy="Record value"]`), value, 'the card shows the same record');
  assert.match((await page.textContent('.section-head'))!, /4 of 50 sites of the plan/);
  // the message names the button there is, where it is: on the new site's card, above the form
  assert.match((await page.textContent('.done'))!, /then press “Verify now” on the site's card above \(under Sites\)/);
  const button = (await page.locator(`${card} button:has-text("Verify now")`).boundingBox())!;
  assert.ok(button.y < (await page.locator('.done').boundingBox())!.y, 'the Verify now button is above the message');

  await page.click(`${card} button:has-text("Verify now")`);
  await page.waitForSelector(`${card} .problem[data-code="SITE_DNS_VERIFICATION_FAILED"]`);
  // one message that says the fact once and what to do, not the title, the API's words and a note repeating it
  assert.equal(await page.textContent(`${card} .problem-title`), 'The TXT record was not found');
  assert.equal(
    await page.textContent(`${card} .problem-message`),
    'No TXT value was found under _footfall.proven-example.com: publish the record above at your DNS provider, then press “Verify now” again (DNS changes can take a while to show).',
  );
  assert.equal(await page.locator(`${card} .problem p`).count(), 2, 'a title and one message');
  assert.deepEqual(await axeViolations(page), [], 'the settings with a failed verification');
  await twoWidths(page, 'settings-sites-verify-failed');

  w.dns.set(name!, [[value]]);
  await page.click(`${card} button:has-text("Verify now")`);
  await page.waitForSelector(`${card} .proof.verified[data-domain="proven-example.com"]`);
  assert.equal(await page.locator(`${card} .problem`).count(), 0);

  await confirmed(page, card, 'Suspend');
  await page.waitForSelector(`${card} .badge:has-text("Suspended")`);
  await page.click(`${card} button:has-text("Resume collecting")`);
  await page.waitForSelector(`${card} .badge:has-text("Collecting")`);

  // its time zone: UTC unless told, changed in the card, saved through the API, still there after a reload
  const zone = `${card} select[name=timezone]`;
  assert.equal(await page.inputValue(zone), 'UTC');
  await page.selectOption(zone, 'America/New_York');
  await page.click(`${card} button:has-text("Save time zone")`);
  await page.waitForSelector(`${card} .zone-form [role=status]:has-text("Saved: America/New_York")`);
  await page.waitForSelector(`${card} dd[data-timezone="America/New_York"]`);
  const siteId = (await page.getAttribute(card, 'data-site'))!;
  const { cookie } = await w.session('owner');
  const stored = await fetch(w.url(`/app/api/sites/${siteId}`), { headers: { cookie: `footfall_session=${cookie}` } }).then((r) =>
    r.json(),
  );
  assert.equal(stored.site.timezone, 'America/New_York', 'saved on the server');
  await page.reload({ waitUntil: 'load' });
  await page.waitForSelector(`${card} dd[data-timezone="America/New_York"]`);
  assert.equal(await page.inputValue(zone), 'America/New_York', 'the saved zone is selected after a reload');
  assert.deepEqual(await axeViolations(page), [], 'the settings with the zone form');
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, 'settings-sites-timezone.png'), fullPage: true });

  // the new site is one of the person's sites
  await page.goto(w.url('/app'), { waitUntil: 'load' });
  await page.waitForSelector('.site-list a:has-text("Proven")');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a pasted address as a hostname is saved as its hostname, which the form shows before saving', { skip, timeout: 60_000 }, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const { page, problems, context } = await w.open(settings('sites'));
  await page.waitForSelector('.site-card');
  await page.fill('input[name=name]', 'Pasted');
  await page.fill('input[name=hostnames]', 'https://www.pasted-example.com/pricing, pasted-example.com');
  await page.waitForSelector('#hostnames-saved:has-text("Saved as www.pasted-example.com, pasted-example.com")');
  assert.deepEqual(await axeViolations(page), [], 'the form with the hostnames it will save');
  await twoWidths(page, 'settings-sites-pasted-url');
  await page.click('button:has-text("Add the site")');
  const card = 'article.site-card:has(h3:has-text("Pasted"))';
  await page.waitForSelector(card);
  assert.equal(await page.locator(`${card} dl.facts dd`).first().textContent(), 'www.pasted-example.com, pasted-example.com');
  assert.equal(await page.textContent('#hostnames-saved'), '', 'the form is empty again, and so is its note');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the only owner is offered no demotion or removal; when the API refuses one anyway (a race), the page says why in words', {
  skip,
  timeout: 60_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const owner = await w.session('owner');
  const api = (method: string, p: string, body?: object) =>
    fetch(w.url(`/app/api/workspaces/${w.workspaces.pro}${p}`), {
      method,
      headers: { 'content-type': 'application/json', cookie: `footfall_session=${owner.cookie}`, 'x-csrf-token': owner.csrf },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  const { members } = (await (await api('GET', '/members')).json()) as { members: { user_id: string; email: string }[] };
  const adminId = members.find((m) => m.email === w.emails.admin)!.user_id;
  const { page, problems, context } = await w.open(settings('members'));
  const ownerRow = `[data-member="${w.emails.owner}"]`;
  await page.waitForSelector(`${ownerRow} [data-only-owner]`);
  assert.equal(await page.locator(`${ownerRow} button`).count(), 0, 'no "Make admin", "Make viewer" or "Remove" for the only owner');
  assert.equal(await page.locator(`[data-member="${w.emails.admin}"] button:has-text("Remove")`).count(), 1);

  // a second owner: the page offers the first one's demotion; that owner leaves before it is pressed
  assert.equal((await api('PATCH', `/members/${adminId}`, { role: 'owner' })).status, 200);
  await page.reload({ waitUntil: 'load' });
  await page.waitForSelector(`${ownerRow} button:has-text("Make viewer")`);
  assert.equal((await api('PATCH', `/members/${adminId}`, { role: 'admin' })).status, 200);
  await page.click(`${ownerRow} button:has-text("Make viewer")`);
  await page.waitForSelector(`${ownerRow} .problem[data-code="LAST_OWNER"]`);
  assert.equal(await page.textContent(`${ownerRow} .problem-title`), 'The workspace needs an owner');
  assert.equal(
    await page.textContent(`${ownerRow} .problem-message`),
    `${w.emails.owner} was not made a viewer: they are now the only owner, and a workspace keeps one. Make another member owner first.`,
  );
  // the list is read again: the admin is an admin again, and the owner's row offers nothing more
  await page.waitForSelector(`${ownerRow} [data-only-owner]`);
  assert.equal(await page.locator(`${ownerRow} button`).count(), 0);
  assert.match((await page.textContent(`[data-member="${w.emails.admin}"]`))!, /admin · joined/);
  const row = (await page.locator(ownerRow).boundingBox())!;
  const box = (await page.locator(`${ownerRow} .problem`).boundingBox())!;
  assert.ok(box.x >= row.x && box.x + box.width <= row.x + row.width, 'the message stays inside its row');
  assert.deepEqual(await axeViolations(page), [], 'the members with the refusal');
  await twoWidths(page, 'settings-members-last-owner');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a goal and a tenant added by hand appear in their lists', { skip, timeout: 60_000 }, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const { page, problems, context } = await w.open(settings('goals'));
  await page.waitForSelector('[data-goal]');
  await page.selectOption('select[name=site_id]', w.sites.extended);
  await page.fill('input[name=name]', 'Read the docs');
  await page.fill('input[name=pattern]', '/docs/*');
  await page.selectOption('select[name=intent]', 'content');
  await page.click('button:has-text("Add the goal")');
  await page.waitForSelector('[data-goal]:has-text("Read the docs")');
  assert.match((await page.textContent('[data-goal]:has-text("Read the docs")'))!, /\/docs\/\* · Extended example/);

  await page.goto(settings('tenants'), { waitUntil: 'load' });
  await page.waitForSelector('[data-tenant]');
  await page.fill('input[name=name]', 'Initech');
  await page.fill('input[name=slug]', 'initech');
  await page.click('button:has-text("Add the tenant")');
  const row = '[data-tenant]:has-text("Initech")';
  await page.waitForSelector(row);
  await page.click(`${row} button:has-text("Deactivate")`);
  await page.waitForSelector(`${row}:has-text("inactive")`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a token: its secret shown once reads /v1; rotating stops the old secret; revoking stops the token', {
  skip,
  timeout: 60_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const { page, problems, context } = await w.open(settings('tokens'));
  await page.waitForSelector('[data-token]');
  const before = await page.locator('[data-token]').count();
  await page.click('button:has-text("Create the token")');
  await page.waitForSelector('.done [data-copy="Secret"]');
  const secret = (await page.textContent('.done [data-copy="Secret"]'))!;
  assert.match(secret, /^ff_live_/);
  assert.equal(await me(secret), 200);
  await page.waitForFunction((n) => document.querySelectorAll('[data-token]').length === n + 1, before);
  const id = (await page.textContent('.done code'))!;
  const row = `[data-token="${id}"]`;

  await confirmed(page, row, 'Rotate');
  await page.waitForSelector(`${row} .done [data-copy="Secret"]`);
  const rotated = (await page.textContent(`${row} .done [data-copy="Secret"]`))!;
  assert.notEqual(rotated, secret);
  assert.equal(await me(secret), 401, 'the old secret stopped working');
  assert.equal(await me(rotated), 200);

  await confirmed(page, row, 'Revoke');
  await page.waitForSelector(`${row}.revoked`);
  assert.equal(await me(rotated), 401, 'a revoked token is refused');
  // the list never shows a secret again
  await page.reload({ waitUntil: 'load' });
  await page.waitForSelector(row);
  assert.ok(!(await page.textContent('main'))!.includes(rotated));
  assert.deepEqual(problems, []);
  await context.close();
});

test("an invitation's link is shown once and takes a seat", { skip, timeout: 60_000 }, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const { page, problems, context } = await w.open(settings('members'));
  await page.waitForSelector('[data-seats]');
  const seats = async () => (await page.getAttribute('[data-seats]', 'data-seats'))!;
  assert.equal(await seats(), '3/10');
  await page.fill('input[name=email]', 'guest@example.com');
  await page.selectOption('select[name=role]', 'admin');
  await page.click('button:has-text("Create the invitation")');
  await page.waitForSelector('.done [data-copy="Invitation link"]');
  assert.ok((await page.textContent('.done [data-copy="Invitation link"]'))!.startsWith(w.url('/app/invite/')));
  assert.match((await page.textContent('.done'))!, /No mail was sent: this server has no mail configured/);
  assert.match((await page.textContent('.done'))!, /Copy it now: it is not shown again\./, 'said where the link is shown');
  assert.deepEqual(await axeViolations(page), [], 'the members with a new invitation link');
  await twoWidths(page, 'settings-members-invitation-link');
  await page.waitForSelector('[data-invitation="guest@example.com"]');
  await page.waitForFunction(() => document.querySelector('[data-seats]')?.getAttribute('data-seats') === '4/10');
  await page.click('[data-invitation="guest@example.com"] button:has-text("Revoke")');
  await page.waitForFunction(() => document.querySelector('[data-invitation]') === null);
  assert.equal(await seats(), '3/10');
  assert.deepEqual(problems, []);
  await context.close();
});

test("a site's card: its script tag to copy; an owner deletes a spare site after typing its name, an admin is offered no deletion", {
  skip,
  timeout: 90_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const owner = await w.session('owner');
  const api = (method: string, p: string, body?: object) =>
    fetch(w.url(`/app/api${p}`), {
      method,
      headers: { 'content-type': 'application/json', cookie: `footfall_session=${owner.cookie}`, 'x-csrf-token': owner.csrf },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  const listed = async () =>
    ((await (await api('GET', `/workspaces/${w.workspaces.pro}/sites`)).json()) as { sites: { site_id: string }[] }).sites.map(
      (s) => s.site_id,
    );
  // two sites of this test's own: one to delete, one deleted behind the page's back
  const add = async (name: string, hostname: string) => {
    const res = await api('POST', `/workspaces/${w.workspaces.pro}/sites`, {
      name,
      hostnames: [hostname],
      collection_profile: 'strict',
    });
    assert.equal(res.status, 201, await res.clone().text());
    return ((await res.json()) as { site_id: string }).site_id;
  };
  const spare = await add('Spare site', 'spare.example');
  const raced = await add('Raced site', 'raced.example');
  const { tracker_script_url } = (await (await api('GET', `/sites/${spare}`)).json()) as { tracker_script_url: string };
  assert.ok(tracker_script_url.endsWith('/js/script.js'));

  const { page, problems, context } = await w.open(settings('sites'));
  const card = `article.site-card[data-site="${spare}"]`;
  await page.waitForSelector(`${card} [data-copy="Script tag"]`);
  assert.equal(
    await page.textContent(`${card} [data-copy="Script tag"]`),
    `<script defer data-domain="spare.example" src="${tracker_script_url}"></script>`,
    "the tag names the site's hostname and this server's script",
  );
  assert.match((await page.textContent(`${card} .snippet`))!, /Tracking snippet.*Paste it into the <head> of every page of the site/);
  const copy = page.locator(`${card} .snippet`).getByRole('button', { name: 'Copy script tag' });
  assert.equal(await copy.evaluate((b) => b.tagName), 'BUTTON');
  await copy.click();
  await page.waitForSelector(`${card} .copy-said:is(:has-text("Copied."), :has-text("Selected"))`);
  assert.equal(await page.locator('.site-card .note:has-text("not offered here")').count(), 0);

  // the confirmation: what goes, the name to type; a wrong name keeps the red button disabled
  await page.click(`${card} button:has-text("Delete this site")`);
  const confirm = `${card} form.delete-confirm`;
  await page.waitForSelector(confirm);
  assert.match(
    (await page.textContent(confirm))!,
    /Every event, goal, funnel, tenant, share link and report subscription of this site is deleted with it\. This cannot be undone\./,
  );
  const remove = page.locator(`${confirm} button.danger`);
  assert.equal(await remove.textContent(), 'Delete Spare site');
  assert.ok(await remove.isDisabled(), 'disabled before a name is typed');
  await page.fill(`${confirm} input[name=confirm_name]`, 'spare site');
  assert.ok(await remove.isDisabled(), 'disabled with a wrong name');
  await page.fill(`${confirm} input[name=confirm_name]`, 'Spare site');
  assert.ok(await remove.isEnabled(), 'enabled with the name');
  assert.deepEqual(await axeViolations(page), [], 'the sites with a deletion to confirm');
  await twoWidths(page, 'settings-sites-delete-confirm');

  await remove.click();
  await page.waitForSelector('.deleted-note[role=status]:has-text("Spare site is deleted")');
  await page.waitForFunction((id) => !document.querySelector(`article.site-card[data-site="${id}"]`), spare);
  assert.ok(!(await listed()).includes(spare), 'gone from the API');
  assert.equal((await api('GET', `/sites/${spare}`)).status, 404);

  // deleted elsewhere while the confirmation is open: the API's refusal, said in the card
  const racedCard = `article.site-card[data-site="${raced}"]`;
  await page.click(`${racedCard} button:has-text("Delete this site")`);
  await page.fill(`${racedCard} input[name=confirm_name]`, 'Raced site');
  assert.equal((await api('DELETE', `/sites/${raced}`, { name: 'Raced site' })).status, 200);
  await page.click(`${racedCard} button.danger`);
  await page.waitForSelector(`${racedCard} .delete-confirm .problem[role=alert]`);
  assert.ok(((await page.textContent(`${racedCard} .problem-message`)) ?? '').length > 0, 'the API says why');
  assert.deepEqual(problems, []);
  await context.close();

  // an admin: no delete button, one sentence saying who can
  const asAdmin = await w.open(settings('sites'), { as: 'admin' });
  await asAdmin.page.waitForSelector(`article.site-card[data-site="${w.sites.extended}"]`);
  assert.equal(await asAdmin.page.locator('button:has-text("Delete this site")').count(), 0);
  assert.equal(
    await asAdmin.page.textContent(`article.site-card[data-site="${w.sites.extended}"] .site-delete`),
    "Only the workspace's owners can delete a site.",
  );
  assert.deepEqual(asAdmin.problems, []);
  await asAdmin.context.close();
});

test('a token made with a name is listed under it, renamed in place, and an unnamed one says so', { skip, timeout: 20_000 }, async () => {
  if (missing) assert.fail(`CI needs Chromium for the dashboard tests: ${missing}`);
  const { page, problems, context } = await w.open(settings('tokens'));
  await page.waitForSelector('form.create-form input[name=name]');
  assert.equal(await page.getAttribute('form.create-form input[name=name]', 'placeholder'), 'e.g. Data warehouse sync');
  await page.fill('form.create-form input[name=name]', 'Warehouse sync');
  await page.click('button:has-text("Create the token")');
  await page.waitForSelector('.done [data-copy="Secret"]');
  const id = (await page.textContent('.done code'))!;
  const row = `[data-token="${id}"]`;
  await page.waitForSelector(`${row} .token-name:has-text("Warehouse sync")`);
  assert.equal(await page.textContent(`${row} .record-main > :first-child`), 'Warehouse sync', 'the name comes first');
  await page.click(`${row} button:has-text("Rename")`);
  await page.fill(`${row} form input[name=name]`, 'Nightly export');
  assert.deepEqual(await axeViolations(page), [], 'the tokens with a rename open');
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, 'settings-tokens-rename-open-1400.png'), fullPage: true });
  await page.click(`${row} form button:has-text("Save")`);
  await page.waitForSelector(`${row} .token-name:has-text("Nightly export")`);
  assert.equal(await page.locator(`${row} form`).count(), 0, 'the inline form closes');
  await page.click(`${row} button:has-text("Rename")`);
  await page.fill(`${row} form input[name=name]`, '');
  await page.click(`${row} form button:has-text("Save")`);
  await page.waitForSelector(`${row} .token-name.muted:has-text("Unnamed")`);
  await page.click(`${row} button:has-text("Rename")`);
  await page.fill(`${row} form input[name=name]`, 'Data warehouse sync');
  await page.click(`${row} form button:has-text("Save")`);
  await page.waitForSelector(`${row} .token-name:has-text("Data warehouse sync")`);
  const listed = await fetch(w.url(`/app/api/workspaces/${w.workspaces.pro}/tokens`), {
    headers: { cookie: (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ') },
  }).then((r) => r.json());
  assert.equal(listed.tokens.find((t: { token_id: string }) => t.token_id === id)?.name, 'Data warehouse sync', 'saved in the API');
  assert.deepEqual(await axeViolations(page), [], 'the tokens with names');
  await twoWidths(page, 'settings-tokens-named');
  assert.deepEqual(problems, []);
  await context.close();
});
