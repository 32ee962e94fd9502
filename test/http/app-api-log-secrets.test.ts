// A run of the management API with every log level on: passwords, session cookies, CSRF tokens, link
// secrets, token secrets, and two-factor secrets, codes, recovery codes and challenges the run made are in
// no line the server logged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { buildApp } from '../../src/app.js';
import { issueLink } from '../../src/services/people/links.js';
import { CapturingMailer, linkIn } from './helpers/capturing-mailer.js';
import { harness } from './helpers/harness.js';
import { PASSWORD, sessionCookieOf } from './helpers/app-api.js';
import { codeAt } from './helpers/two-factor.js';

test('no secret the run made reaches the server log', async () => {
  const h = await harness();
  let log = '';
  const stream = new Writable({ write: (chunk, _enc, done) => ((log += chunk.toString()), done()) });
  const mailer = new CapturingMailer();
  const app = await buildApp({ ...h.container, mailer }, { logger: { level: 'trace', stream } });
  const secrets: string[] = [PASSWORD];
  const keep = (s: string | undefined) => {
    assert.ok(s, 'a secret to look for');
    secrets.push(s);
    return s;
  };
  const link = (url: string) => keep(/\/([0-9A-Za-z]{32})$/.exec(url)![1]);
  try {
    const ws = (await h.workspace('pro')).id;
    const owner = await h.people.createUser({ email: 'owner@example.com' });
    await h.people.addMember({ workspaceId: ws, userId: owner.id, role: 'owner' });
    const inject = (method: string, url: string, opts: { cookie?: string; csrf?: string; body?: unknown } = {}) =>
      app.inject({
        method: method as 'GET',
        url,
        headers: {
          ...(opts.cookie ? { cookie: `footfall_session=${opts.cookie}` } : {}),
          ...(opts.csrf ? { 'x-csrf-token': opts.csrf } : {}),
        },
        ...(opts.body ? { payload: opts.body as object } : {}),
      });

    // A one-time sign-in link, then a first password through the password change.
    const signInUrl = (await issueLink({ people: h.people, clock: h.clock, publicUrl: h.container.config.publicUrl }, owner, 'sign_in'))
      .url;
    const byLink = await inject('POST', '/app/api/sign-in-links/accept', { body: { sign_in: link(signInUrl) } });
    let cookie = keep(sessionCookieOf(byLink));
    let csrf = keep(byLink.json().csrf_token);
    const changed = await inject('POST', '/app/api/session/password', { cookie, csrf, body: { new_password: PASSWORD } });
    cookie = keep(sessionCookieOf(changed));
    csrf = keep(changed.json().csrf_token);

    // Failures log too: a wrong password, a short one, a stale cookie, a missing CSRF token.
    await inject('POST', '/app/api/session', { body: { email: 'owner@example.com', password: keep('a wrong password 123') } });
    await inject('POST', '/app/api/session/password', { cookie, csrf, body: { current_password: PASSWORD, new_password: keep('short1') } });
    await inject('GET', '/app/api/session', { cookie: keep('Z'.repeat(43)) });
    await inject('POST', `/app/api/workspaces/${ws}/tokens`, { cookie, body: { scopes: ['metrics:read'] } });

    // An invitation accepted by a new person.
    const inv = await inject('POST', `/app/api/workspaces/${ws}/invitations`, {
      cookie,
      csrf,
      body: { email: 'new@example.com', role: 'admin' },
    });
    assert.equal(inv.json().invitation_url, undefined, 'mailed, not answered');
    const invitation = link(linkIn(await mailer.nth(1)));
    await app.inject({ method: 'GET', url: `/app/invite/${invitation}` }); // the page's path, as a browser opens it
    const joined = await inject('POST', '/app/api/invitations/accept', {
      body: { invitation, password: keep('the newcomer password'), name: 'New' },
    });
    keep(sessionCookieOf(joined));
    keep(joined.json().csrf_token);

    // A reset asked for and used.
    await inject('POST', '/app/api/password-reset', { body: { email: 'new@example.com' } });
    const reset = link(linkIn(await mailer.nth(2)));
    await app.inject({ method: 'GET', url: `/app/reset/${reset}?from=mail` });
    const afterReset = await inject('POST', '/app/api/password-reset/accept', { body: { reset, password: keep('after the reset 42') } });
    keep(sessionCookieOf(afterReset));

    // Token secrets: made, rotated.
    const token = await inject('POST', `/app/api/workspaces/${ws}/tokens`, { cookie, csrf, body: { scopes: ['metrics:read'] } });
    keep(token.json().secret);
    const rotated = await inject('POST', `/app/api/workspaces/${ws}/tokens/${token.json().token_id}/rotate`, { cookie, csrf });
    keep(rotated.json().secret);
    await app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: `Bearer ${rotated.json().secret}` } });
    // The dashboard's batch: each of its reads is a request of its own, made with the batch's cookie.
    const site = await h.catalog.createSite({
      workspaceId: ws,
      name: 'Logged',
      hostnames: ['logged.example'],
      collectionProfile: 'extended',
    });
    const batch = await inject(
      'GET',
      `/app/api/reads?r=${encodeURIComponent(`/v1/tenants?site_id=${site.id}`)}&r=${encodeURIComponent(`/v1/goals?site_id=${site.id}`)}`,
      { cookie },
    );
    assert.equal(batch.body.split('\n').filter((l) => l.includes('"status":200')).length, 2, batch.body);
    // Two-factor sign-in: the secret, the codes (right, wrong, replayed), recovery codes, challenges.
    const setup = await inject('POST', '/app/api/session/two-factor/setup', { cookie, csrf });
    const totp = keep(setup.json().secret);
    const enabled = await inject('POST', '/app/api/session/two-factor/enable', {
      cookie,
      csrf,
      body: { password: PASSWORD, code: keep(codeAt(h, totp)) },
    });
    assert.equal(enabled.statusCode, 200, enabled.body);
    const recovery: string[] = enabled.json().recovery_codes;
    for (const c of recovery) keep(c);
    h.clock.advance(30_000);
    const step1 = await inject('POST', '/app/api/session', { body: { email: 'owner@example.com', password: PASSWORD } });
    const challenge = keep(step1.json().challenge);
    await inject('POST', '/app/api/session/second-step', { body: { challenge, code: keep('924513') } });
    const signedIn = await inject('POST', '/app/api/session/second-step', { body: { challenge, code: keep(codeAt(h, totp)) } });
    assert.equal(signedIn.statusCode, 200, signedIn.body);
    cookie = keep(sessionCookieOf(signedIn));
    csrf = keep(signedIn.json().csrf_token);
    const step2 = await inject('POST', '/app/api/session', { body: { email: 'owner@example.com', password: PASSWORD } });
    await inject('POST', '/app/api/session/second-step', { body: { challenge: keep(step2.json().challenge), code: recovery[0] } });
    const regen = await inject('POST', '/app/api/session/two-factor/recovery-codes', {
      cookie,
      csrf,
      body: { password: PASSWORD, code: recovery[1] },
    });
    assert.equal(regen.statusCode, 200, regen.body);
    for (const c of regen.json().recovery_codes) keep(c);
    await inject('POST', '/app/api/session/two-factor/disable', {
      cookie,
      csrf,
      body: { password: PASSWORD, code: regen.json().recovery_codes[0] },
    });
    await inject('DELETE', '/app/api/session', { cookie, csrf });
  } finally {
    await app.close();
    await h.close();
  }
  assert.ok(log.split('\n').filter((l) => l.includes('"incoming request"')).length >= 15, 'requests were logged');
  assert.match(log, /\/app\/invite\/\[redacted\]/, "the link page's path is logged without its secret");
  for (const s of secrets) assert.ok(!log.includes(s), `a secret (${s.slice(0, 4)}…) is in the log`);
});
