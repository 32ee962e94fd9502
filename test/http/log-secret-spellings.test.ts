// The router decodes percent-encoding, so `/%73hare/<slug>` and `/%61pp/invite/<secret>` reach the same
// routes as their plain spelling; a secret pasted into a query string (a token, an embed token, a
// password) arrives in the URL too. Sent over a real connection (the URL exactly as written, dot segments
// and malformed sequences included) to a server logging at trace level, none of these secrets may be in
// the log, neither as sent nor once the log is decoded, while an ordinary URL is logged as sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { Writable } from 'node:stream';
import { buildApp } from '../../src/app.js';
import { issueLink } from '../../src/services/people/links.js';
import { harness } from './helpers/harness.js';
import { call, person } from './helpers/app-api.js';
import { embedKey, mint, shareLink } from './helpers/embeds.js';

/** One request with the URL as written (no client library normalizes it); answers the status. */
function rawGet(port: number, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () =>
      socket.write(`GET ${url} HTTP/1.1\r\nHost: stats.example\r\nConnection: close\r\n\r\n`),
    );
    let head = '';
    socket.on('data', (chunk) => (head += chunk.toString('latin1')));
    socket.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0)));
    socket.on('error', reject);
  });
}

/** Every character percent-encoded: what a client may send for a secret itself. */
const encodeAll = (s: string) => [...Buffer.from(s)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
/** The log read with its percent-encoding undone, sequence by sequence (a malformed one stays). */
const decoded = (text: string) => text.replace(/%[0-9A-Fa-f]{2}/g, (m) => String.fromCharCode(parseInt(m.slice(1), 16)));

test('no secret reaches the log in any spelling that routes or could carry one; an ordinary URL is logged as sent', async () => {
  const h = await harness();
  let log = '';
  const stream = new Writable({ write: (chunk, _enc, done) => ((log += chunk.toString()), done()) });
  const app = await buildApp(h.container, { logger: { level: 'trace', stream } });
  try {
    const ws = (await h.workspace('pro')).id;
    const site = (
      await h.catalog.createSite({ workspaceId: ws, name: 'Spellings', hostnames: ['spellings.example'], collectionProfile: 'extended' })
    ).id;
    const owner = await person(h, { workspaceId: ws, role: 'owner' });
    const secretOf = (url: string) => /\/([0-9A-Za-z]{32})$/.exec(url)![1];
    const invitation = secretOf(
      (await call(h, owner, 'POST', `/app/api/workspaces/${ws}/invitations`, { body: { email: 'new@example.com', role: 'viewer' } })).json()
        .invitation_url,
    );
    const links = { people: h.people, clock: h.clock, publicUrl: h.container.config.publicUrl };
    const reset = secretOf((await issueLink(links, owner.user, 'reset')).url);
    const signIn = secretOf((await issueLink(links, owner.user, 'sign_in')).url);
    const slug = (await shareLink(h, site)).slug;
    const parent = await h.token(ws);
    const key = await embedKey(h, ws);
    const jwt = mint(h, key, { token_id: parent.id, site_id: site });
    const password = 'correct horse battery staple';
    const secrets = {
      invitation,
      reset,
      signIn,
      slug,
      token: parent.secret,
      jwt,
      embedKeySecret: key.secret,
      password,
      cookie: owner.cookie,
      csrf: owner.csrf,
    };

    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    const port = Number(new URL(address).port);
    const spellings = [
      // the link pages, as written and as the router decodes them
      `/app/invite/${invitation}`,
      `/%61pp/invite/${invitation}`,
      `/app/%69nvite/${invitation}`,
      `/%61%70%70/%69%6E%76%69%74%65/${invitation}`,
      `/app/invite/${encodeAll(invitation)}`,
      `/app/invite/${invitation.slice(0, 10)}%${invitation.charCodeAt(10).toString(16)}${invitation.slice(11)}`,
      `/app/reset/${reset}?from=mail`,
      `/app/%72eset/${reset}`,
      `/app/sign-in/${signIn}`,
      `/app/sign%2Din/${signIn}`,
      `/app/sign-in/${signIn}%zz`,
      // not routed (case, empty and dot segments), but a secret all the same
      `/APP/INVITE/${invitation}`,
      `/app//invite/${invitation}`,
      `/./app/invite/${invitation}`,
      `/app/invite/./${invitation}`,
      `/app%2Finvite%2F${invitation}`,
      // a share link's page and reads
      `/share/${slug}`,
      `/%73hare/${slug}`,
      `/%73hare/${slug}/api/v1/goals`,
      `/sh%61re/${encodeAll(slug)}/api/v1/goals`,
      `/share/${slug}/api/%zz`,
      `/share/${slug}%2Fapi/v1/goals`,
      `/Share/${slug}`,
      // secrets in a query string or a fragment, by name and by shape, plain and encoded
      `/v1/me?token=${parent.secret}`,
      `/v1/me?%74oken=${encodeAll(parent.secret)}`,
      `/v1/me?x=${parent.secret}`,
      `/v1/me?access_token=${jwt}`,
      `/v1/me?t=${jwt.replace(/\./g, '%2E')}`,
      `/v1/me?site_id=x&jwt=${encodeAll(jwt)}`,
      `/embed?key=${key.id}#token=${jwt}`,
      `/v1/me?api_key=${key.secret}`,
      `/v1/me?Secret=${key.secret}&token=one&token=${parent.secret}`,
      `/v1/me?password=${encodeURIComponent(password)}`,
      `/app/api/session?session=${owner.cookie}&csrf_token=${owner.csrf}`,
      `/v1/me?invitation=${invitation}&reset=${reset}&slug=${slug}`,
      `/v1/me?r=${encodeURIComponent(`/v1/goals?site_id=${site}&token=${jwt}`)}`,
      `/v1/me?q=%zz&token=${parent.secret}%zz`,
      `/v1/${jwt}`,
      `/v1/me;token=${parent.secret}`,
    ];
    for (const url of spellings) assert.ok((await rawGet(port, url)) > 0, `${url}: no answer`);
    const ordinary = `/v1/reports/overview?site_id=${site}&from=2025-06-01&to=2025-06-14&filters=${encodeURIComponent('page==/pricing')}&compare=prev_period`;
    assert.equal(await rawGet(port, ordinary), 401);
    await app.close();

    const lines = log.split('\n').filter(Boolean);
    const urls = lines
      .map((l) => JSON.parse(l) as { req?: { url?: string } })
      .filter((l) => l.req?.url !== undefined)
      .map((l) => l.req!.url!);
    assert.ok(urls.length >= spellings.length, `only ${urls.length} requests logged for ${spellings.length} sent`);
    const leaks = Object.entries(secrets).filter(
      ([, s]) => log.includes(s) || decoded(log).includes(s) || decoded(decoded(log)).includes(s),
    );
    assert.deepEqual(
      leaks.map(([name]) => name),
      [],
      `secrets in the log:\n${urls.join('\n')}`,
    );
    // and no part of the embed token long enough to matter (its payload, its signature)
    for (const part of jwt.split('.').filter((p) => p.length > 20))
      assert.ok(!decoded(log).includes(part), 'the log holds part of the embed token');
    assert.ok(urls.includes(ordinary), `the ordinary read is logged as sent:\n${urls.join('\n')}`);
    // what is masked is the secret alone: the rest of the URL stays as sent
    for (const readable of [
      '/%73hare/[redacted]/api/v1/goals',
      '/%61pp/invite/[redacted]',
      '/app/reset/[redacted]?from=mail',
      `/v1/me?site_id=x&jwt=[redacted]`,
      `/embed?key=[redacted]#token=[redacted]`,
    ])
      assert.ok(urls.includes(readable), `${readable} is not logged:\n${urls.join('\n')}`);
  } finally {
    await app.close();
    await h.close();
  }
});
