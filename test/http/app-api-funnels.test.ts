// Saved funnels over the management API: an admin saves one (steps as the query body writes them), every
// member lists them, a change needs the CSRF token, the catalog's refusals name the step, a site of
// another workspace is unknown; a saved funnel is then what POST /api/v2/funnel reads by funnel_id.
// Which role may call which route is app-api-roles.test.ts's table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from './helpers/harness.js';
import { checked, person } from './helpers/app-api.js';

test('admins save, change and delete funnels; viewers list them; refusals name the step', async () => {
  const h = await harness();
  try {
    const ws = (await h.workspace('pro')).id;
    const other = (await h.workspace('pro')).id;
    const mk = (workspaceId: string, host: string) =>
      h.catalog.createSite({ workspaceId, name: 'S', hostnames: [host], collectionProfile: 'extended' }).then((s) => s.id);
    const site = await mk(ws, 'funnels-a.example');
    const theirs = await mk(other, 'funnels-b.example');
    const admin = await person(h, { workspaceId: ws, role: 'admin' });
    const viewer = await person(h, { workspaceId: ws, role: 'viewer' });
    const steps = [{ page: '/pricing*' }, { event: 'Signup' }];

    const created = await checked(h, admin, 'POST', `/app/api/workspaces/${ws}/funnels`, {
      body: { site_id: site, name: 'Signup', steps },
    });
    assert.equal(created.statusCode, 201, created.body);
    const f = created.json();
    assert.match(f.funnel_id, /^funnel_/);
    assert.deepEqual([f.site_id, f.name, f.steps], [site, 'Signup', steps]);

    const listed = await checked(h, viewer, 'GET', `/app/api/workspaces/${ws}/funnels?site_id=${site}`);
    assert.equal(listed.statusCode, 200, listed.body);
    assert.deepEqual(listed.json().funnels, [f]);
    const byViewer = await checked(h, viewer, 'POST', `/app/api/workspaces/${ws}/funnels`, { body: { site_id: site, name: 'X', steps } });
    assert.equal(byViewer.statusCode, 403, byViewer.body);
    const noCsrf = await checked(h, admin, 'DELETE', `/app/api/funnels/${f.funnel_id}`, { csrf: false });
    assert.equal(noCsrf.statusCode, 403, noCsrf.body);

    for (const [bad, message] of [
      [[{ page: 'pricing' }, { event: 'Signup' }], /steps\[0\].*start with "\/"/],
      [[{ event: 'Signup' }, { event: 'Signup' }], /steps\[1\].*repeats/],
    ] as const) {
      const r = await checked(h, admin, 'POST', `/app/api/workspaces/${ws}/funnels`, { body: { site_id: site, name: 'X', steps: bad } });
      assert.equal(r.statusCode, 422, r.body);
      assert.match(r.json().error.message, message);
    }
    const tooShort = await checked(h, admin, 'POST', `/app/api/workspaces/${ws}/funnels`, {
      body: { site_id: site, name: 'X', steps: [steps[0]] },
    });
    assert.equal(tooShort.statusCode, 422, tooShort.body);
    const foreign = await checked(h, admin, 'POST', `/app/api/workspaces/${ws}/funnels`, { body: { site_id: theirs, name: 'X', steps } });
    assert.equal(foreign.statusCode, 404, foreign.body);

    const changed = await checked(h, admin, 'PATCH', `/app/api/funnels/${f.funnel_id}`, {
      body: { steps: [...steps, { page: '/welcome' }] },
    });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.deepEqual(changed.json().steps, [...steps, { page: '/welcome' }]);
    assert.deepEqual((await h.catalog.getFunnel(f.funnel_id))?.steps.at(-1), { kind: 'page', pattern: '/welcome' });

    const gone = await checked(h, admin, 'DELETE', `/app/api/funnels/${f.funnel_id}`);
    assert.equal(gone.statusCode, 204, gone.body);
    assert.equal(await h.catalog.getFunnel(f.funnel_id), null);
    const again = await checked(h, admin, 'DELETE', `/app/api/funnels/${f.funnel_id}`);
    assert.equal(again.statusCode, 404, again.body);
  } finally {
    await h.close();
  }
});
