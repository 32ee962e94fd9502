// Every cookie footfall sets or clears (the session's, by each way of signing in, renewal and sign-out;
// a share link's password cookie) is Secure when FOOTFALL_PUBLIC_URL is https://, whatever protocol the
// request arrived over: behind a proxy that ends TLS, the request itself says http.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { issueLink } from '../../src/services/people/links.js';
import { harness, type Harness } from './helpers/harness.js';
import { call, PASSWORD, person, signIn } from './helpers/app-api.js';
import { shareLink } from './helpers/embeds.js';

const MINUTE = 60_000;
const secretOf = (url: string) => /\/([0-9A-Za-z]{32})$/.exec(url)![1];

interface SeenCookie {
  what: string;
  name: string;
  cleared: boolean;
  secure: boolean;
  httpOnly: boolean;
  sameSite: string | undefined;
  path: string | undefined;
}

/** The cookie `name` the answer sets; `status`: the answer expected, when not a success. */
function cookieOf(what: string, res: LightMyRequestResponse, name: string, status?: number): SeenCookie {
  if (status === undefined) assert.ok(res.statusCode < 300, `${what}: ${res.statusCode} ${res.body.slice(0, 200)}`);
  else assert.equal(res.statusCode, status, `${what}: ${res.body.slice(0, 200)}`);
  const c = res.cookies.find((x) => x.name === name);
  assert.ok(c, `${what}: no ${name} cookie in ${JSON.stringify(res.headers['set-cookie'])}`);
  return {
    what,
    name,
    cleared: c.value === '',
    secure: c.secure === true,
    httpOnly: c.httpOnly === true,
    sameSite: c.sameSite as string | undefined,
    path: c.path as string | undefined,
  };
}

/** Every answer that sets or clears a cookie, made once each through the real routes. */
async function everyCookie(h: Harness): Promise<SeenCookie[]> {
  const seen: SeenCookie[] = [];
  const ws = (await h.workspace('pro')).id;
  const owner = await person(h, { workspaceId: ws, role: 'owner' });
  seen.push(cookieOf('sign-in', await signIn(h, owner.email), 'footfall_session'));

  const invitation = (
    await call(h, owner, 'POST', `/app/api/workspaces/${ws}/invitations`, { body: { email: 'joiner@example.com', role: 'viewer' } })
  ).json();
  const joined = await call(h, null, 'POST', '/app/api/invitations/accept', {
    body: { invitation: secretOf(invitation.invitation_url), password: PASSWORD },
  });
  seen.push(cookieOf('invitation accepted', joined, 'footfall_session'));

  const links = { people: h.people, clock: h.clock, publicUrl: h.container.config.publicUrl };
  const reset = await issueLink(links, owner.user, 'reset');
  seen.push(
    cookieOf(
      'reset accepted',
      await call(h, null, 'POST', '/app/api/password-reset/accept', { body: { reset: secretOf(reset.url), password: PASSWORD } }),
      'footfall_session',
    ),
  );
  const oneTime = await issueLink(links, owner.user, 'sign_in');
  const byLink = await call(h, null, 'POST', '/app/api/sign-in-links/accept', { body: { sign_in: secretOf(oneTime.url) } });
  seen.push(cookieOf('sign-in link accepted', byLink, 'footfall_session'));
  const me = { ...owner, cookie: byLink.cookies.find((c) => c.name === 'footfall_session')!.value, csrf: byLink.json().csrf_token };

  const changed = await call(h, me, 'POST', '/app/api/session/password', {
    body: { current_password: PASSWORD, new_password: 'another long password' },
  });
  seen.push(cookieOf('password changed', changed, 'footfall_session'));
  const after = { ...me, cookie: changed.cookies.find((c) => c.name === 'footfall_session')!.value, csrf: changed.json().csrf_token };

  // A session's expiry moves at most once a minute; when it moves, the cookie is sent again.
  h.clock.advance(2 * MINUTE);
  seen.push(cookieOf('renewed by a management read', await call(h, after, 'GET', '/app/api/session'), 'footfall_session'));
  h.clock.advance(2 * MINUTE);
  const site = (
    await h.catalog.createSite({ workspaceId: ws, name: 'Cookies', hostnames: ['cookies.example'], collectionProfile: 'extended' })
  ).id;
  seen.push(cookieOf('renewed by a dashboard read', await call(h, after, 'GET', `/app/api/v1/goals?site_id=${site}`), 'footfall_session'));

  const stale = { ...after, cookie: 'Z'.repeat(43) };
  // refused, and the browser told to forget it
  seen.push(cookieOf('stale cookie on a management route', await call(h, stale, 'GET', '/app/api/session'), 'footfall_session', 401));
  seen.push(
    cookieOf('stale cookie on a dashboard read', await call(h, stale, 'GET', `/app/api/v1/goals?site_id=${site}`), 'footfall_session', 401),
  );
  seen.push(cookieOf('sign-out', await call(h, after, 'DELETE', '/app/api/session'), 'footfall_session'));

  const locked = await shareLink(h, site, { password: 'a share link password' });
  const unlocked = await h.app.inject({
    method: 'POST',
    url: `/share/${locked.slug}/api/session`,
    payload: { password: 'a share link password' },
  });
  seen.push(cookieOf('share link password', unlocked, 'footfall_share'));
  return seen;
}

function assertAttributes(seen: SeenCookie[], secure: boolean): void {
  assert.ok(seen.length >= 11, `only ${seen.length} cookies seen`);
  assert.deepEqual(
    seen.filter((c) => c.secure !== secure).map((c) => c.what),
    [],
    `these cookies are not ${secure ? '' : 'un'}Secure`,
  );
  for (const c of seen) {
    assert.equal(c.httpOnly, true, `${c.what}: HttpOnly`);
    if (c.name === 'footfall_session') assert.deepEqual([c.sameSite, c.path], ['Lax', '/app'], c.what);
    else assert.deepEqual([c.sameSite, c.path?.startsWith('/share/')], ['Strict', true], c.what);
  }
  assert.deepEqual(
    seen
      .filter((c) => c.cleared)
      .map((c) => c.what)
      .sort(),
    ['sign-out', 'stale cookie on a dashboard read', 'stale cookie on a management route'],
  );
}

test('with an https:// public URL every cookie set or cleared is Secure, though the request came over plain http (a proxy ended TLS)', async () => {
  const h = await harness({ config: { publicUrl: 'https://stats.example.com' } });
  try {
    assertAttributes(await everyCookie(h), true);
  } finally {
    await h.close();
  }
});

test('with an http:// public URL no cookie is Secure, unless the request itself came over https', async () => {
  const h = await harness({ config: { publicUrl: 'http://stats.example.com:8080', trustProxy: 'true' } });
  try {
    assertAttributes(await everyCookie(h), false);
    const p = await person(h);
    const tls = await h.app.inject({
      method: 'POST',
      url: '/app/api/session',
      payload: { email: p.email, password: PASSWORD },
      headers: { 'x-forwarded-proto': 'https' },
    });
    assert.equal(tls.cookies.find((c) => c.name === 'footfall_session')?.secure, true, 'a request over https gets a Secure cookie');
  } finally {
    await h.close();
  }
});
