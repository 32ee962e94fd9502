// Every management route, for every kind of caller: owner, admin, viewer, a person of another
// workspace, and no session. The table is keyed by the registered routes, so a route added without
// an entry fails here. Each call gets its own signed-in person and fresh resources, so a call that
// ends a session or deletes something leaves the others as they were.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appApiRoutes } from '../../src/http/app-api/routes/index.js';
import { hashSecret } from '../../src/domain/tokens.js';
import type { Role } from '../../src/domain/roles.js';
import { harness, TEST_HASHER, type Harness } from './helpers/harness.js';
import { checked, person, PASSWORD, type Person } from './helpers/app-api.js';

type Caller = Role | 'stranger' | 'anonymous';
const CALLERS: Caller[] = ['owner', 'admin', 'viewer', 'stranger', 'anonymous'];

interface World {
  h: Harness;
  ws: string;
  other: string;
  seq: () => number;
}

interface Call {
  params?: Record<string, string>;
  query?: string;
  body?: unknown;
}

interface Entry {
  /** statuses for owner, admin, viewer, stranger, anonymous */
  expect: [number, number, number, number, number];
  setup?: (w: World) => Promise<Call>;
}

const site = async (w: World) => {
  const s = await w.h.catalog.createSite({ workspaceId: w.ws, name: 'S', hostnames: [`s${w.seq()}.example.com`], collectionProfile: 'extended' });
  return s.id;
};
const link = async (w: World, purpose: 'reset' | 'sign_in') => {
  const u = await w.h.people.createUser({ email: `l${w.seq()}@example.com` });
  const secret = `L${String(w.seq()).padStart(31, '0')}`;
  await w.h.people.createLink({ secretHash: hashSecret(secret), userId: u.id, purpose, expiresAt: '2099-01-01T00:00:00.000Z', now: w.h.clock.now().toISOString() });
  return secret;
};

const SIGNED_IN: Entry['expect'] = [200, 200, 200, 200, 401];
const OWNER_ONLY: Entry['expect'] = [200, 403, 403, 404, 401];
const ADMIN_READ: Entry['expect'] = [200, 200, 403, 404, 401];
const ANY_READ: Entry['expect'] = [200, 200, 200, 404, 401];
const ADMIN_CREATE: Entry['expect'] = [201, 201, 403, 404, 401];
const ADMIN_CHANGE: Entry['expect'] = [200, 200, 403, 404, 401];
const ADMIN_DELETE: Entry['expect'] = [204, 204, 403, 404, 401];

const TABLE: Record<string, Entry> = {
  'POST /session': { expect: [200, 200, 200, 200, 200], setup: async (w) => {
    const email = `signin${w.seq()}@example.com`;
    await w.h.people.createUser({ email, passwordHash: await TEST_HASHER.hash(PASSWORD) });
    return { body: { email, password: PASSWORD } };
  } },
  'GET /session': { expect: SIGNED_IN },
  'DELETE /session': { expect: [204, 204, 204, 204, 401] },
  'POST /session/password': { expect: SIGNED_IN, setup: async () => ({ body: { current_password: PASSWORD, new_password: 'a brand new password' } }) },
  'POST /invitations/accept': { expect: [200, 200, 200, 200, 200], setup: async (w) => {
    const secret = `I${String(w.seq()).padStart(31, '0')}`;
    await w.h.people.createInvitation({ workspaceId: w.other, email: `inv${w.seq()}@example.com`, role: 'viewer', secretHash: hashSecret(secret), invitedBy: null, expiresAt: '2099-01-01T00:00:00.000Z', now: w.h.clock.now().toISOString(), seatLimit: null });
    return { body: { invitation: secret, password: PASSWORD, name: 'Invitee' } };
  } },
  'POST /password-reset': { expect: [204, 204, 204, 204, 204], setup: async () => ({ body: { email: 'anyone@example.com' } }) },
  'POST /password-reset/accept': { expect: [200, 200, 200, 200, 200], setup: async (w) => ({ body: { reset: await link(w, 'reset'), password: PASSWORD } }) },
  'POST /sign-in-links/accept': { expect: [200, 200, 200, 200, 200], setup: async (w) => ({ body: { sign_in: await link(w, 'sign_in') } }) },
  'GET /workspaces': { expect: SIGNED_IN },
  'POST /workspaces': { expect: [201, 201, 201, 201, 401], setup: async () => ({ body: { name: 'Mine' } }) },
  'PATCH /workspaces/:workspace_id': { expect: OWNER_ONLY, setup: async () => ({ body: { name: 'Renamed' } }) },
  'GET /workspaces/:workspace_id/usage': { expect: ADMIN_READ },
  'GET /workspaces/:workspace_id/members': { expect: ADMIN_READ },
  'PATCH /workspaces/:workspace_id/members/:user_id': { expect: OWNER_ONLY, setup: async (w) => {
    const u = await w.h.people.createUser({ email: `m${w.seq()}@example.com` });
    await w.h.people.addMember({ workspaceId: w.ws, userId: u.id, role: 'viewer' });
    return { params: { user_id: u.id }, body: { role: 'admin' } };
  } },
  'DELETE /workspaces/:workspace_id/members/:user_id': { expect: [204, 403, 403, 404, 401], setup: async (w) => {
    const u = await w.h.people.createUser({ email: `m${w.seq()}@example.com` });
    await w.h.people.addMember({ workspaceId: w.ws, userId: u.id, role: 'viewer' });
    return { params: { user_id: u.id } };
  } },
  'GET /workspaces/:workspace_id/invitations': { expect: ADMIN_READ },
  'POST /workspaces/:workspace_id/invitations': { expect: ADMIN_CREATE, setup: async (w) => ({ body: { email: `new${w.seq()}@example.com`, role: 'viewer' } }) },
  'DELETE /workspaces/:workspace_id/invitations/:invitation_id': { expect: ADMIN_DELETE, setup: async (w) => {
    const inv = await w.h.people.createInvitation({ workspaceId: w.ws, email: `x${w.seq()}@example.com`, role: 'viewer', secretHash: hashSecret(`x${w.seq()}`), invitedBy: null, expiresAt: '2099-01-01T00:00:00.000Z', now: w.h.clock.now().toISOString(), seatLimit: null });
    return { params: { invitation_id: inv.id } };
  } },
  'GET /workspaces/:workspace_id/sites': { expect: ANY_READ },
  'POST /workspaces/:workspace_id/sites': { expect: ADMIN_CREATE, setup: async (w) => ({ body: { name: 'New', hostnames: [`n${w.seq()}.example.com`], collection_profile: 'strict' } }) },
  'PATCH /sites/:site_id': { expect: ADMIN_CHANGE, setup: async (w) => ({ params: { site_id: await site(w) }, body: { name: 'Renamed' } }) },
  'GET /workspaces/:workspace_id/tenants': { expect: ANY_READ },
  'POST /workspaces/:workspace_id/tenants': { expect: ADMIN_CREATE, setup: async (w) => ({ body: { site_id: await site(w), slug: 'north', name: 'North' } }) },
  'PATCH /tenants/:tenant_id': { expect: ADMIN_CHANGE, setup: async (w) => {
    const t = await w.h.catalog.createTenant({ siteId: await site(w), slug: 'south', name: 'South' });
    return { params: { tenant_id: t.id }, body: { name: 'Southern' } };
  } },
  'GET /workspaces/:workspace_id/goals': { expect: ANY_READ },
  'POST /workspaces/:workspace_id/goals': { expect: ADMIN_CREATE, setup: async (w) => ({ body: { site_id: await site(w), name: 'G', type: 'PAGEVIEW_MATCH', intent: 'signup', pattern: '/thanks' } }) },
  'PATCH /goals/:goal_id': { expect: ADMIN_CHANGE, setup: async (w) => ({ params: { goal_id: (await goal(w)).id }, body: { name: 'Renamed' } }) },
  'DELETE /goals/:goal_id': { expect: ADMIN_DELETE, setup: async (w) => ({ params: { goal_id: (await goal(w)).id } }) },
  'GET /workspaces/:workspace_id/tokens': { expect: ADMIN_READ },
  'POST /workspaces/:workspace_id/tokens': { expect: ADMIN_CREATE, setup: async () => ({ body: { scopes: ['metrics:read'] } }) },
  'POST /workspaces/:workspace_id/tokens/:token_id/revoke': { expect: ADMIN_CHANGE, setup: async (w) => ({ params: { token_id: (await w.h.token(w.ws)).id } }) },
  'POST /workspaces/:workspace_id/tokens/:token_id/rotate': { expect: ADMIN_CHANGE, setup: async (w) => ({ params: { token_id: (await w.h.token(w.ws)).id } }) },
};

async function goal(w: World) {
  return w.h.catalog.createGoal({ siteId: await site(w), name: 'G', type: 'PAGEVIEW_MATCH', intent: 'content', pattern: '/blog/*', filters: {} });
}

const keyOf = (r: { method: string; url: string }) => `${r.method} ${r.url}`;

test('every registered management route has an entry in the role table, and every entry a route', () => {
  const registered = appApiRoutes.map(keyOf).sort();
  assert.deepEqual(registered, Object.keys(TABLE).sort());
});

async function callerFor(w: World, who: Caller): Promise<Person | null> {
  if (who === 'anonymous') return null;
  if (who === 'stranger') return person(w.h, { workspaceId: w.other, role: 'owner' });
  return person(w.h, { workspaceId: w.ws, role: who });
}

function urlOf(route: string, w: World, params: Record<string, string>, query = ''): string {
  const path = route.replace(/:([a-z_]+)/g, (_, name) => (name === 'workspace_id' ? w.ws : params[name] ?? `${name}_missing`));
  return `/app/api${path}${query}`;
}

async function world(): Promise<World> {
  const h = await harness();
  // Enterprise without limits: the calls add members, invitations and sites freely.
  const ws = (await h.workspace('enterprise')).id;
  const other = (await h.workspace('pro')).id;
  let n = 0;
  return { h, ws, other, seq: () => ++n };
}

test('each caller gets the status its role allows on every route, each answer as the document describes it', async () => {
  const w = await world();
  try {
    const failures: string[] = [];
    for (const route of appApiRoutes) {
      const entry = TABLE[keyOf(route)];
      for (const [i, who] of CALLERS.entries()) {
        const c = (await entry.setup?.(w)) ?? {};
        const caller = await callerFor(w, who);
        const url = urlOf(route.url, w, c.params ?? {}, c.query);
        const r = await checked(w.h, caller, route.method, url, { body: c.body });
        if (r.statusCode !== entry.expect[i]) failures.push(`${who} ${route.method} ${route.url}: ${r.statusCode}, expected ${entry.expect[i]} ${r.body.slice(0, 200)}`);
      }
    }
    assert.deepEqual(failures, []);
  } finally {
    await w.h.close();
  }
});

test('the role is checked before the body: with an unknown field, a caller without the role gets 403 or 404, one with it 422 naming the field', async () => {
  const w = await world();
  try {
    const failures: string[] = [];
    for (const route of appApiRoutes.filter((r) => r.guard && r.body)) {
      const entry = TABLE[keyOf(route)];
      for (const [i, who] of CALLERS.entries()) {
        const c = (await entry.setup?.(w)) ?? {};
        const caller = await callerFor(w, who);
        const r = await checked(w.h, caller, route.method, urlOf(route.url, w, c.params ?? {}), { body: { ...(c.body as object), not_a_field: true } });
        const want = entry.expect[i] < 300 ? 422 : entry.expect[i];
        if (r.statusCode !== want) failures.push(`${who} ${route.method} ${route.url}: ${r.statusCode}, expected ${want}`);
        if (want === 422) assert.deepEqual(r.json().error.details, { field: 'not_a_field' }, `${route.method} ${route.url}`);
      }
    }
    assert.deepEqual(failures, []);
  } finally {
    await w.h.close();
  }
});

test('a workspace or resource the caller may not see answers exactly what an unknown one does', async () => {
  const w = await world();
  try {
    const stranger = await person(w.h, { workspaceId: w.other, role: 'owner' });
    const s = await site(w);
    // The same body but for the id the message names.
    const body = (r: { json(): any }, id: string) => JSON.stringify({ ...r.json().error, request_id: undefined }).replace(id, '<id>');
    const pairs: [string, string, string, string][] = [
      ['GET', `/app/api/workspaces/${w.ws}/sites`, '/app/api/workspaces/ws_doesnotexist/sites', w.ws],
      ['PATCH', `/app/api/sites/${s}`, '/app/api/sites/site_doesnotexist', s],
    ];
    for (const [method, hidden, unknown, id] of pairs) {
      const a = await checked(w.h, stranger, method, hidden, { body: { name: 'x' } });
      const b = await checked(w.h, stranger, method, unknown, { body: { name: 'x' } });
      assert.equal(a.statusCode, 404);
      assert.equal(b.statusCode, 404);
      assert.equal(body(a, id), body(b, unknown.split('/')[4]));
    }
  } finally {
    await w.h.close();
  }
});
