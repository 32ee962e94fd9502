// API tokens have a name in the management API: given at creation, listed, changed and cleared by
// PATCH (admins and owners, like revoke), refused when blank, and never reachable in another workspace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from './helpers/harness.js';
import { checked, person } from './helpers/app-api.js';

test('a token is created with a name, listed with it, renamed and cleared by PATCH', async () => {
  const h = await harness();
  try {
    const ws = (await h.workspace('pro')).id;
    const admin = await person(h, { workspaceId: ws, role: 'admin' });
    const viewer = await person(h, { workspaceId: ws, role: 'viewer' });
    const tokens = `/app/api/workspaces/${ws}/tokens`;
    const made = await checked(h, admin, 'POST', tokens, { body: { scopes: ['metrics:read'], name: '  Data warehouse sync ' } });
    assert.equal(made.statusCode, 201, made.body);
    const { token_id, secret, name } = made.json();
    assert.equal(name, 'Data warehouse sync', 'trimmed');
    // listed oldest first: the second token made a moment later
    h.clock.advance(1000);
    const unnamed = await checked(h, admin, 'POST', tokens, { body: { scopes: ['usage:read'] } });
    assert.equal(unnamed.json().name, null);
    const names = async () =>
      (await checked(h, admin, 'GET', tokens)).json().tokens.map((t: { token_id: string; name: string | null }) => [t.token_id, t.name]);
    assert.deepEqual(await names(), [
      [token_id, 'Data warehouse sync'],
      [unnamed.json().token_id, null],
    ]);

    const renamed = await checked(h, admin, 'PATCH', `${tokens}/${token_id}`, { body: { name: 'Nightly export' } });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.deepEqual([renamed.json().token_id, renamed.json().name, renamed.json().revoked_at], [token_id, 'Nightly export', null]);
    assert.equal(renamed.json().secret, undefined, 'a rename shows no secret');
    assert.deepEqual((await names())[0], [token_id, 'Nightly export']);
    assert.equal((await h.get('/v1/me', { token: secret })).statusCode, 200, 'the secret still works after a rename');

    const cleared = await checked(h, admin, 'PATCH', `${tokens}/${token_id}`, { body: { name: null } });
    assert.equal(cleared.statusCode, 200, cleared.body);
    assert.equal(cleared.json().name, null);
    assert.deepEqual((await names())[0], [token_id, null]);

    // a viewer may not rename (as it may not revoke); nothing changes
    const byViewer = await checked(h, viewer, 'PATCH', `${tokens}/${token_id}`, { body: { name: 'Mine' } });
    assert.equal(byViewer.statusCode, 403, byViewer.body);
    assert.equal((await h.catalog.getToken(token_id))?.name, null);
    // the CSRF token is needed, as for every change
    const noCsrf = await checked(h, admin, 'PATCH', `${tokens}/${token_id}`, { body: { name: 'X' }, csrf: false });
    assert.equal(noCsrf.statusCode, 403, noCsrf.body);
    assert.equal((await h.catalog.getToken(token_id))?.name, null);
  } finally {
    await h.close();
  }
});

test("a blank or missing name is refused naming the field; another workspace's token is 404", async () => {
  const h = await harness();
  try {
    const ws = (await h.workspace('pro')).id;
    const owner = await person(h, { workspaceId: ws, role: 'owner' });
    const tokens = `/app/api/workspaces/${ws}/tokens`;
    const { token_id } = (await checked(h, owner, 'POST', tokens, { body: { scopes: ['metrics:read'], name: 'Kept' } })).json();
    for (const body of [{ name: '' }, { name: '   ' }, { name: 'x'.repeat(201) }, {}, { name: 'A', scopes: ['usage:read'] }]) {
      const r = await checked(h, owner, 'PATCH', `${tokens}/${token_id}`, { body });
      assert.equal(r.statusCode, 422, `${JSON.stringify(body)}: ${r.body}`);
    }
    const blankAtCreate = await checked(h, owner, 'POST', tokens, { body: { scopes: ['metrics:read'], name: ' ' } });
    assert.equal(blankAtCreate.statusCode, 422, blankAtCreate.body);
    assert.match(blankAtCreate.json().error.message, /token name/);
    assert.equal((await checked(h, owner, 'GET', tokens)).json().tokens.length, 1, 'nothing half-made');
    assert.equal((await h.catalog.getToken(token_id))?.name, 'Kept');

    const other = await h.token((await h.workspace('pro')).id);
    const foreign = await checked(h, owner, 'PATCH', `${tokens}/${other.id}`, { body: { name: 'Hijacked' } });
    assert.equal(foreign.statusCode, 404, foreign.body);
    assert.equal((await h.catalog.getToken(other.id))?.name, null, "another workspace's token is untouched");
    const missing = await checked(h, owner, 'PATCH', `${tokens}/tok_missing`, { body: { name: 'X' } });
    assert.equal(missing.statusCode, 404, missing.body);
  } finally {
    await h.close();
  }
});
