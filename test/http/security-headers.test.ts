// Authenticated answers are neither cached nor sniffed: every answer under /v1, /app/api, a share link's
// /share/<slug>/api and /embed/api (success, refusal, 404 and 405 alike, streams and cache hits included)
// carries Cache-Control: no-store and X-Content-Type-Options: nosniff. The routes are walked as the app
// registers them, so a route added tomorrow is checked the day it lands. The pages, their hashed files and
// the tracker script keep the caching they ask for.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { harness, type Harness } from './helpers/harness.js';
import { withRegisteredRoutes } from './helpers/registered-routes.js';
import { ALL_SCOPES, type Registered } from './helpers/route-rules.js';
import { call, PASSWORD, person, type Person } from './helpers/app-api.js';
import { embedKey, mint, shareLink } from './helpers/embeds.js';
import { DEFAULT_WEB_DIR } from '../../src/http/pages/web-assets.js';

const SECOND = 1000;
const SHARE_PASSWORD = 'a share link password';
/** Every answer under these carries the two headers; `:slug` is one path segment. */
const PREFIXES = [/^\/v1(\/|$)/, /^\/app\/api(\/|$)/, /^\/share\/[^/]+\/api(\/|$)/, /^\/embed\/api(\/|$)/];
const covered = (url: string) => PREFIXES.some((p) => p.test(url));

let h: Harness;
let registered: Registered[];
let ws: string;
let site: string;
let owner: Person;
let token: string;
let embedToken: string;
let openSlug: string;
let lockedSlug: string;
/** what failed, one line each, so one run names every answer without the headers */
const missing: string[] = [];

before(async () => {
  ({ built: h, registered } = await withRegisteredRoutes(() => harness({ collect: true })));
  // enough rate for one token to ask every route, and the session and share windows kept clear by the clock
  ws = (await h.workspace('enterprise', { rate_limit_rps: 1000 })).id;
  site = (await h.catalog.createSite({ workspaceId: ws, name: 'Headers', hostnames: ['headers.example'], collectionProfile: 'extended' }))
    .id;
  owner = await person(h, { workspaceId: ws, role: 'owner' });
  const parent = await h.token(ws, { scopes: [...ALL_SCOPES] });
  token = parent.secret;
  embedToken = mint(h, await embedKey(h, ws), { token_id: parent.id, site_id: site });
  openSlug = (await shareLink(h, site)).slug;
  lockedSlug = (await shareLink(h, site, { password: SHARE_PASSWORD })).slug;
});
after(() => h.close());

/** One request; its answer is checked for both headers and kept for the caller's own checks. */
async function ask(what: string, options: InjectOptions): Promise<LightMyRequestResponse> {
  h.clock.advance(SECOND); // each window (session, share viewer) starts afresh
  const res = await h.app.inject(options);
  checkHeaders(what, res);
  return res;
}

function checkHeaders(what: string, res: LightMyRequestResponse): void {
  const cache = res.headers['cache-control'];
  const sniff = res.headers['x-content-type-options'];
  if (cache !== 'no-store' || sniff !== 'nosniff')
    missing.push(`${what} -> ${res.statusCode}: Cache-Control ${cache}, X-Content-Type-Options ${sniff}`);
}

async function asOwner(what: string, method: string, url: string, body?: unknown): Promise<LightMyRequestResponse> {
  h.clock.advance(SECOND);
  const res = await call(h, owner, method, url, body === undefined ? {} : { body });
  checkHeaders(what, res);
  return res;
}

const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });
/** the route's path with its parameters filled: a share link's slug with a real one, the rest unknown */
const pathOf = (url: string, slug = openSlug) => url.replace(':slug', slug).replace(/:([a-z_]+)/g, '$1_unknown');

test('every route under /v1, /app/api, /share/<slug>/api and /embed/api answers no-store and nosniff, admitted or refused', async () => {
  const walked = registered.filter((r) => covered(r.url) || covered(pathOf(r.url)));
  assert.ok(walked.length > 60, `only ${walked.length} routes under the prefixes`);
  const seenKinds = new Set<string>();
  for (const r of walked) {
    const path = pathOf(r.url);
    const what = `${r.method} ${r.url}`;
    const method = r.method as 'GET';
    if (r.url.startsWith('/v1/')) {
      seenKinds.add('v1');
      const admitted = await ask(`${what} with a token`, { method, url: path, headers: bearer(token) });
      assert.ok(
        admitted.statusCode < 400 || admitted.statusCode === 422,
        `${what} with a token: ${admitted.statusCode} ${admitted.body.slice(0, 200)}`,
      );
      if (r.strategy === 'token+embed') {
        const embedded = await ask(`${what} with an embed token`, { method, url: path, headers: bearer(embedToken) });
        assert.ok(embedded.statusCode < 400 || embedded.statusCode === 422, `${what} with an embed token: ${embedded.statusCode}`);
      }
      assert.equal((await ask(`${what} without a token`, { method, url: path })).statusCode, 401, what);
    } else if (r.url === '/embed/api/reads') {
      seenKinds.add('embed');
      const batch = await ask(`${what} with an embed token`, {
        method,
        url: `${path}?r=${encodeURIComponent('/v1/goals')}`,
        headers: bearer(embedToken),
      });
      assert.equal(batch.statusCode, 200, `${what}: ${batch.body.slice(0, 200)}`);
      assert.equal((await ask(`${what} without a token`, { method, url: path })).statusCode, 401, what);
    } else if (r.url.startsWith('/share/:slug/api/')) {
      seenKinds.add('share');
      if (r.url === '/share/:slug/api/session') {
        const unlocked = await ask(`${what} with the password`, {
          method,
          url: pathOf(r.url, lockedSlug),
          payload: { password: SHARE_PASSWORD },
        });
        assert.equal(unlocked.statusCode, 204, unlocked.body);
        assert.equal(
          (
            await ask(`${what} with a wrong password`, {
              method,
              url: pathOf(r.url, lockedSlug),
              payload: { password: 'not the password' },
            })
          ).statusCode,
          401,
          what,
        );
        continue;
      }
      const query = r.url.endsWith('/reads') ? `?r=${encodeURIComponent('/v1/goals')}` : '';
      const read = await ask(`${what} through an open link`, { method, url: `${path}${query}` });
      assert.ok(read.statusCode === 200 || read.statusCode === 422, `${what}: ${read.statusCode} ${read.body.slice(0, 200)}`);
      assert.equal(
        (await ask(`${what} through a locked link`, { method, url: `${pathOf(r.url, lockedSlug)}${query}` })).statusCode,
        401,
        what,
      );
    } else if (r.url.startsWith('/app/api/')) {
      seenKinds.add('app');
      if (r.authenticated) {
        // a session of its own: signing out, or a password change, must not end the owner's
        const who = await person(h, { workspaceId: ws, role: 'owner' });
        h.clock.advance(SECOND);
        const res = await call(h, who, r.method, path);
        checkHeaders(`${what} with a session`, res);
        assert.ok(![401, 403].includes(res.statusCode), `${what} with a session: ${res.statusCode} ${res.body.slice(0, 200)}`);
        h.clock.advance(SECOND);
        const refused = await call(h, null, r.method, path);
        checkHeaders(`${what} without a session`, refused);
        assert.equal(refused.statusCode, 401, what);
      } else {
        // the public ones: the document, signing in, the links; asked well (where that needs no secret) and badly
        if (r.method === 'GET') assert.equal((await ask(what, { method, url: path })).statusCode, 200, what);
        if (r.url === '/app/api/session')
          assert.equal(
            (await ask(`${what} with the password`, { method, url: path, payload: { email: owner.email, password: PASSWORD } })).statusCode,
            200,
          );
        if (r.method === 'POST')
          assert.equal((await ask(`${what} with no body`, { method, url: path, payload: {} })).statusCode, 422, what);
      }
    } else {
      assert.fail(`${what}: under a covered prefix, but no request here asks it`);
    }
  }
  assert.deepEqual([...seenKinds].sort(), ['app', 'embed', 'share', 'v1']);
  assert.deepEqual(missing.splice(0), [], 'answers without Cache-Control: no-store and X-Content-Type-Options: nosniff');
});

test('404 and 405 under each prefix, and a route reached by a percent-encoded spelling, answer no-store and nosniff too', async () => {
  const byPath = new Map<string, Set<string>>();
  for (const r of registered.filter((x) => covered(pathOf(x.url))))
    (byPath.get(pathOf(r.url)) ?? byPath.set(pathOf(r.url), new Set()).get(pathOf(r.url))!).add(r.method);
  for (const [path, methods] of byPath) {
    const other = ['PUT', 'PATCH', 'DELETE', 'POST', 'GET'].find((m) => !methods.has(m))!;
    const res = await ask(`${other} ${path}`, { method: other as 'GET', url: path, headers: bearer(token) });
    // a share link's paths hold its slug: the one record of routes (server/route-methods.ts) matches them too
    assert.equal(res.statusCode, 405, `${other} ${path}: ${res.body.slice(0, 200)}`);
  }
  for (const url of [
    '/v1',
    '/v1/nope',
    '/app/api',
    '/app/api/nope',
    `/share/${openSlug}/api`,
    `/share/${openSlug}/api/nope`,
    '/embed/api',
    '/embed/api/nope',
  ])
    assert.equal((await ask(`GET ${url}`, { method: 'GET', url, headers: bearer(token) })).statusCode, 404, url);
  // refused before routing, where Fastify runs no hook
  for (const url of ['/v1/%zz', '/app/api/%zz', `/share/${openSlug}/api/%zz`, '/embed/api/%zz'])
    assert.equal((await ask(`GET ${url}`, { method: 'GET', url, headers: bearer(token) })).statusCode, 400, url);
  // the router decodes the path: these are /v1/me, /app/api/session and a share link's read
  assert.equal((await ask('GET /%761/me', { method: 'GET', url: '/%761/me', headers: bearer(token) })).statusCode, 200);
  assert.equal(
    (
      await ask('GET /%61pp/api/session', {
        method: 'GET',
        url: '/%61pp/api/session',
        headers: { cookie: `footfall_session=${owner.cookie}` },
      })
    ).statusCode,
    200,
  );
  assert.equal(
    (await ask('GET /%73hare/<slug>/api/v1/goals', { method: 'GET', url: `/%73hare/${openSlug}/api/v1/goals` })).statusCode,
    200,
  );
  assert.deepEqual(missing.splice(0), [], 'answers without Cache-Control: no-store and X-Content-Type-Options: nosniff');
});

test('answers carrying secrets or data: new token, embed key and share link secrets, the CSRF token, reads, a cache hit, the read batches', async () => {
  const created = await asOwner('a new token', 'POST', `/app/api/workspaces/${ws}/tokens`, { scopes: ['metrics:read'] });
  assert.equal(created.statusCode, 201, created.body);
  assert.match(created.json().secret, /^ff_live_/);
  const rotated = await asOwner('a rotated token', 'POST', `/app/api/workspaces/${ws}/tokens/${created.json().token_id}/rotate`);
  assert.equal(rotated.statusCode, 200, rotated.body);
  const key = await asOwner('a new embed key', 'POST', `/app/api/workspaces/${ws}/embed-keys`, { origins: ['https://app.example.com'] });
  assert.equal(key.statusCode, 201, key.body);
  assert.match(key.json().secret, /^ff_embed_/);
  const share = await asOwner('a new share link', 'POST', `/app/api/sites/${site}/shares`, {});
  assert.equal(share.statusCode, 201, share.body);
  assert.match(share.json().url, /\/share\//);
  const invitation = await asOwner('a new invitation', 'POST', `/app/api/workspaces/${ws}/invitations`, {
    email: 'headers@example.com',
    role: 'viewer',
  });
  assert.equal(invitation.statusCode, 201, invitation.body);
  const session = await asOwner('the session', 'GET', '/app/api/session');
  assert.ok(session.json().csrf_token);
  const signIn = await ask('signing in', { method: 'POST', url: '/app/api/session', payload: { email: owner.email, password: PASSWORD } });
  assert.ok(signIn.json().csrf_token);

  const overview = `/v1/reports/overview?site_id=${site}&from=2025-06-01&to=2025-06-14`;
  for (const n of ['a miss', 'a cache hit'])
    assert.equal((await ask(`${overview} (${n})`, { method: 'GET', url: overview, headers: bearer(token) })).statusCode, 200);
  assert.equal(
    (await ask(`${overview} with an embed token`, { method: 'GET', url: overview, headers: bearer(embedToken) })).statusCode,
    200,
  );
  const csv = await ask('a CSV read', {
    method: 'GET',
    url: `/v1/metrics/timeseries?site_id=${site}&from=2025-06-01&to=2025-06-14`,
    headers: { ...bearer(token), accept: 'text/csv' },
  });
  assert.deepEqual([csv.statusCode, csv.headers['content-type']], [200, 'text/csv; charset=utf-8'], csv.body.slice(0, 200));
  assert.equal((await asOwner("the dashboard's read", 'GET', `/app/api${overview}`)).statusCode, 200);
  assert.equal(
    (await ask("a share link's read", { method: 'GET', url: `/share/${openSlug}/api/v1/reports/overview?from=2025-06-01&to=2025-06-14` }))
      .statusCode,
    200,
  );

  // The batches answer a stream: compressed and not, each is checked as sent.
  const r = `r=${encodeURIComponent(overview)}&r=${encodeURIComponent(`/v1/goals?site_id=${site}`)}`;
  for (const encoding of ['br', 'identity']) {
    const headers = { 'accept-encoding': encoding };
    assert.equal((await asOwnerWith(`the dashboard's batch (${encoding})`, `/app/api/reads?${r}`, headers)).statusCode, 200);
    const embed = await ask(`the embed batch (${encoding})`, {
      method: 'GET',
      url: `/embed/api/reads?${r}`,
      headers: { ...headers, ...bearer(embedToken) },
    });
    assert.equal(embed.statusCode, 200);
    const shareBatch = await ask(`a share link's batch (${encoding})`, {
      method: 'GET',
      url: `/share/${openSlug}/api/reads?r=${encodeURIComponent('/v1/reports/overview?from=2025-06-01&to=2025-06-14')}`,
      headers,
    });
    assert.equal(shareBatch.statusCode, 200);
  }
  assert.deepEqual(missing.splice(0), [], 'answers without Cache-Control: no-store and X-Content-Type-Options: nosniff');
});

test('a read batch over a real connection: its stream leaves with both headers', async () => {
  const address = await h.app.listen({ host: '127.0.0.1', port: 0 });
  const url = new URL(`/embed/api/reads?r=${encodeURIComponent(`/v1/goals?site_id=${site}`)}`, address);
  const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
    http.get(url, { headers: bearer(embedToken) }, resolve).on('error', reject),
  );
  let body = '';
  for await (const chunk of res) body += chunk;
  assert.equal(res.statusCode, 200, body);
  assert.match(body, /^\{"i":0,"status":200,/);
  assert.deepEqual(
    [res.headers['transfer-encoding'], res.headers['cache-control'], res.headers['x-content-type-options']],
    ['chunked', 'no-store', 'nosniff'],
  );
});

async function asOwnerWith(what: string, url: string, headers: Record<string, string>): Promise<LightMyRequestResponse> {
  return ask(what, { method: 'GET', url, headers: { ...headers, cookie: `footfall_session=${owner.cookie}` } });
}

test('the pages, their hashed files, the tracker script and collection keep their own caching', async () => {
  const shell = await h.app.inject({ method: 'GET', url: '/app', headers: { accept: 'text/html' } });
  assert.deepEqual([shell.headers['cache-control'], shell.headers['x-content-type-options']], ['no-cache', 'nosniff']);
  const sharePage = await h.app.inject({ method: 'GET', url: `/share/${openSlug}` });
  assert.equal(sharePage.headers['cache-control'], 'no-cache');
  const manifest = JSON.parse(fs.readFileSync(path.join(DEFAULT_WEB_DIR, 'manifest.json'), 'utf8')) as { entries: Record<string, string> };
  const asset = await h.app.inject({ method: 'GET', url: `/app/assets/${manifest.entries['main.js']}` });
  assert.equal(asset.statusCode, 200);
  assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
  const script = await h.app.inject({ method: 'GET', url: '/js/script.js' });
  assert.equal(script.headers['cache-control'], 'public, max-age=3600');
  const event = await h.app.inject({
    method: 'POST',
    url: '/api/event',
    payload: { n: 'pageview', u: 'https://headers.example/', d: 'headers.example' },
  });
  assert.equal(event.statusCode, 202, event.body);
  assert.notEqual(event.headers['cache-control'], 'no-store');
});
