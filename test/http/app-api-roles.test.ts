// Every management route, for every kind of caller: owner, admin, viewer, a person of another
// workspace, and no session. The table is keyed by the registered routes, so a route added without
// an entry fails here. Each call gets its own signed-in person and fresh resources, so a call that
// ends a session or deletes something leaves the others as they were.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appApiRoutes } from '../../src/http/app-api/routes/index.js';
import { harness } from './helpers/harness.js';
import { checked, person, type Person } from './helpers/app-api.js';
import { CALLERS, ROLE_TABLE as TABLE, site, type Caller, type World } from './helpers/app-api-roles.js';

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
  const path = route.replace(/:([a-z_]+)/g, (_, name) => (name === 'workspace_id' ? w.ws : (params[name] ?? `${name}_missing`)));
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
        if (r.statusCode !== entry.expect[i])
          failures.push(`${who} ${route.method} ${route.url}: ${r.statusCode}, expected ${entry.expect[i]} ${r.body.slice(0, 200)}`);
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
        const r = await checked(w.h, caller, route.method, urlOf(route.url, w, c.params ?? {}), {
          body: { ...(c.body as object), not_a_field: true },
        });
        // a use-case's answer (2xx, or 409 such as a server without mail) comes after the body's check
        const want = entry.expect[i] < 300 || entry.expect[i] === 409 ? 422 : entry.expect[i];
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
