// The control plane down, as its driver boundary reports it (ControlPlaneUnavailableError: PostgreSQL
// unreachable, SQLite locked past its busy timeout): every way in answers 503 CONTROL_PLANE_UNAVAILABLE
// with Retry-After in its envelope, never 500, and collection keeps taking the domains it knows. The
// catalog here fails on demand; test/stack/faults.test.ts stops a real PostgreSQL under a running server.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { ControlPlaneUnavailableError } from '../../src/domain/errors.js';
import { RETRY_AFTER_SECONDS } from '../../src/http/server/error-envelope.js';
import { CATALOG_TTL_MS } from '../../src/ingest/collect/collector.js';
import type { CatalogStore } from '../../src/ports/catalog-store.js';
import { harness, type Harness } from './helpers/harness.js';
import { call, checked, person, type Person } from './helpers/app-api.js';
import { shareLink } from './helpers/embeds.js';
import { CHROME } from './helpers/collect.js';

let h: Harness;
let down = false;
let site: string;
let token: string;
let owner: Person;
let share: { slug: string };

/** The catalog, failing every call while `down` as the driver boundary fails them (own properties of an object
 * made from it: the harness's catalog holds non-configurable ones a Proxy could not replace). */
function failing(c: CatalogStore): CatalogStore {
  const names = new Set<string>();
  for (let o: object | null = c; o && o !== Object.prototype; o = Object.getPrototypeOf(o))
    for (const name of Object.getOwnPropertyNames(o))
      if (name !== 'constructor' && typeof (c as never)[name] === 'function') names.add(name);
  const wrapped = Object.create(c) as Record<string, unknown>;
  for (const name of names) {
    const method = (c as unknown as Record<string, (...args: unknown[]) => unknown>)[name];
    const value = (...args: unknown[]) =>
      down
        ? Promise.reject(new ControlPlaneUnavailableError('the PostgreSQL control plane is unavailable: connect ECONNREFUSED'))
        : method.apply(c, args);
    Object.defineProperty(wrapped, name, { value });
  }
  return wrapped as unknown as CatalogStore;
}

before(async () => {
  h = await harness({ collect: true, catalog: failing });
  const ws = (await h.workspace('enterprise', { rate_limit_rps: null })).id;
  site = (await h.catalog.createSite({ workspaceId: ws, name: 'Down', hostnames: ['down.example'], collectionProfile: 'extended' })).id;
  token = (await h.token(ws)).secret;
  owner = await person(h, { workspaceId: ws, role: 'owner' });
  share = await shareLink(h, site);
});
after(() => h?.close());

function unavailable(res: LightMyRequestResponse, what: string): void {
  assert.equal(res.statusCode, 503, `${what}: ${res.body.slice(0, 300)}`);
  const { error } = res.json();
  assert.equal(error.code, 'CONTROL_PLANE_UNAVAILABLE', what);
  assert.equal(typeof error.message, 'string');
  assert.equal(error.request_id, res.headers['x-request-id'], what);
  assert.equal(res.headers['retry-after'], String(RETRY_AFTER_SECONDS.CONTROL_PLANE_UNAVAILABLE), what);
}

const event = (domain: string) =>
  h.app.inject({
    method: 'POST',
    url: '/api/event',
    headers: { 'content-type': 'text/plain', 'user-agent': CHROME },
    payload: JSON.stringify({ n: 'pageview', u: `https://${domain}/`, d: domain }),
  });

test('every way in answers 503 CONTROL_PLANE_UNAVAILABLE with Retry-After while the control plane is down, and 200 again after', async () => {
  assert.equal((await event('down.example')).statusCode, 202, 'the collector learns the domain');
  const calls: [string, () => Promise<LightMyRequestResponse>][] = [
    ['GET /v1/me', () => h.get('/v1/me', { token })],
    ['GET /v1/reports/overview', () => h.get(`/v1/reports/overview?site_id=${site}`, { token })],
    ['GET /app/api/sites/:site_id', () => checked(h, owner, 'GET', `/app/api/sites/${site}`)],
    ['PATCH /app/api/sites/:site_id', () => checked(h, owner, 'PATCH', `/app/api/sites/${site}`, { body: { name: 'Renamed' } })],
    ['dashboard read', () => call(h, owner, 'GET', `/app/api/v1/goals?site_id=${site}`)],
    ['share read', () => h.app.inject({ url: `/share/${share.slug}/api/v1/goals` })],
  ];
  for (const [what, call] of calls) assert.equal((await call()).statusCode, 200, `${what} while up`);
  down = true;
  try {
    for (const [what, call] of calls) unavailable(await call(), what);
    const batch = await checked(h, owner, 'GET', `/app/api/reads?r=${encodeURIComponent(`/v1/goals?site_id=${site}`)}`);
    assert.equal(batch.statusCode, 200, batch.body);
    const line = JSON.parse(batch.body.trim());
    assert.equal(line.status, 503, batch.body);
    assert.equal(line.body.error.code, 'CONTROL_PLANE_UNAVAILABLE');
    assert.equal(line.retry_after, String(RETRY_AFTER_SECONDS.CONTROL_PLANE_UNAVAILABLE));
    // collection: a domain it never resolved cannot be told from a stranger's; one it knows is still taken
    unavailable(await event('never-seen.example'), 'an unknown domain');
    h.clock.advance(CATALOG_TTL_MS + 1);
    assert.equal((await event('down.example')).statusCode, 202, 'a known domain past its memo');
  } finally {
    down = false;
  }
  h.clock.advance(CATALOG_TTL_MS + 1);
  for (const [what, call] of calls) assert.equal((await call()).statusCode, 200, `${what} once back`);
});
