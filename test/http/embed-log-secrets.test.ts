// A run of embeds and share links with every log level on: no embed token, embed key secret, share slug,
// share password or share cookie the run made is in any line the server logged, whatever was asked
// (good reads, refused tokens, a password form, a gone link, the management API creating them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { buildApp } from '../../src/app.js';
import { harness } from './helpers/harness.js';
import { person } from './helpers/app-api.js';
import { mint } from './helpers/embeds.js';

test('no embed token, key secret, share slug, password or cookie the run made reaches the server log', async () => {
  const h = await harness();
  let log = '';
  const stream = new Writable({ write: (chunk, _enc, done) => ((log += chunk.toString()), done()) });
  const app = await buildApp(h.container, { logger: { level: 'trace', stream } });
  const secrets: string[] = [];
  const keep = (s: string) => (secrets.push(s), s);
  try {
    const ws = (await h.workspace('pro')).id;
    const site = (
      await h.catalog.createSite({ workspaceId: ws, name: 'S', hostnames: ['log-secrets.example'], collectionProfile: 'strict' })
    ).id;
    const tenant = (await h.catalog.createTenant({ siteId: site, slug: 'acme', name: 'Acme' })).id;
    const admin = await person(h, { workspaceId: ws, role: 'admin' });
    const manage = (url: string, body: unknown) =>
      app.inject({
        method: 'POST',
        url,
        payload: body as object,
        headers: { cookie: `footfall_session=${admin.cookie}`, 'x-csrf-token': admin.csrf },
      });

    const key = (await manage(`/app/api/workspaces/${ws}/embed-keys`, { origins: ['https://app.example.com'] })).json();
    keep(key.secret);
    const parent = await h.token(ws);
    keep(parent.secret);
    const tokens = [
      mint(h, { id: key.key_id, secret: key.secret }, { token_id: parent.id, site_id: site, tenant_id: tenant }),
      mint(
        h,
        { id: key.key_id, secret: key.secret },
        {
          token_id: parent.id,
          site_id: site,
          iat: Math.floor(h.clock.now().getTime() / 1000) - 7200,
          exp: Math.floor(h.clock.now().getTime() / 1000) - 60,
        },
      ),
      mint(h, { id: key.key_id, secret: 'ff_embed_wrong' }, { token_id: parent.id, site_id: site }),
    ].map(keep);
    for (const token of tokens) {
      for (const url of [
        '/v1/reports/overview',
        '/v1/metrics/breakdown?dimension=tenant',
        '/v1/me',
        `/v1/metrics/timeseries?site_id=${site}&tenant_id=nope`,
      ])
        await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
      // a token pasted into a URL by mistake: the embed page's fragment is never sent, a query would be
      await app.inject({ method: 'GET', url: `/embed?key=${key.key_id}` });
    }

    const password = keep('a share link password');
    const open = keep((await manage(`/app/api/sites/${site}/shares`, { tenant_id: tenant })).json().url.split('/').pop());
    const locked = keep((await manage(`/app/api/sites/${site}/shares`, { password })).json().url.split('/').pop());
    for (const slug of [open, locked, keep('Q'.repeat(40))]) {
      await app.inject({ method: 'GET', url: `/share/${slug}` });
      await app.inject({ method: 'GET', url: `/share/${slug}/api/v1/reports/overview?from=2025-06-01` });
      await app.inject({ method: 'GET', url: `/share/${slug}/api/v1/nope` });
      await app.inject({ method: 'POST', url: `/share/${slug}/api/session`, payload: { password: 'wrong password here' } });
    }
    const unlocked = await app.inject({ method: 'POST', url: `/share/${locked}/api/session`, payload: { password } });
    assert.equal(unlocked.statusCode, 204);
    const cookie = keep(unlocked.cookies.find((c) => c.name === 'footfall_share')!.value);
    assert.equal(
      (await app.inject({ method: 'GET', url: `/share/${locked}/api/v1/goals`, headers: { cookie: `footfall_share=${cookie}` } }))
        .statusCode,
      200,
    );

    assert.ok(log.includes('/share/[redacted]'), 'share requests were logged, redacted');
    assert.ok(log.includes('"url":"/v1/reports/overview"'), 'embed reads were logged');
    for (const s of secrets) assert.ok(!log.includes(s), `the log holds a secret: ${s.slice(0, 12)}…`);
    // and no part of a token long enough to matter (its signature, its payload)
    for (const t of tokens)
      for (const part of t.split('.').filter((p) => p.length > 20)) assert.ok(!log.includes(part), 'the log holds part of a token');
  } finally {
    await app.close();
    await h.close();
  }
});
