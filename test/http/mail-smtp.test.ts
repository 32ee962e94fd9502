// Invitations and password resets mailed through a real SMTP server on loopback (AUTH, STARTTLS and
// smtps://), configured as an operator does (FOOTFALL_SMTP_URL, FOOTFALL_MAIL_FROM, FOOTFALL_SMTP_CA):
// the mail arrives, its link works, the inviter's answer holds no link, an email without an account
// gets the same answer and no mail, and the SMTP password is in no log line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { harness, type Harness } from './helpers/harness.js';
import { checked, person, sessionCookieOf, type Person } from './helpers/app-api.js';
import { SMTP_PASSWORD, SMTP_USER, startSmtpServer, TEST_CA_FILE, type SmtpTestServer } from './helpers/smtp-test-server.js';

const FROM = 'footfall@example.com';
const LINK = /http:\/\/127\.0\.0\.1:8080\/app\/(invite|reset)\/([0-9A-Za-z]{32})/;

interface World {
  smtp: SmtpTestServer;
  h: Harness;
  /** h with an app that logs every line at trace level into `log()` */
  logged: Harness;
  log(): string;
  owner: Person;
  ws: string;
  close(): Promise<void>;
}

async function world(opts: { smtps?: boolean } = {}): Promise<World> {
  const smtp = await startSmtpServer(opts);
  const h = await harness({ config: { smtpUrl: smtp.url, mailFrom: `Footfall <${FROM}>`, smtpCa: TEST_CA_FILE } });
  let log = '';
  const stream = new Writable({ write: (chunk, _enc, done) => ((log += chunk.toString()), done()) });
  const app: FastifyInstance = await buildApp(h.container, { logger: { level: 'trace', stream } });
  const workspace = await h.catalog.createWorkspace({ name: 'Acme <Analytics>', plan: 'pro' });
  const owner = await person(h, { workspaceId: workspace.id, role: 'owner' });
  return {
    smtp,
    h,
    logged: { ...h, app },
    log: () => log,
    owner,
    ws: workspace.id,
    close: async () => {
      await app.close();
      await h.close();
      await smtp.close();
    },
  };
}

/** Neither the password nor any spelling of it a URL or a log might carry. */
function assertNoPassword(text: string, where: string): void {
  for (const s of [
    SMTP_PASSWORD,
    encodeURIComponent(SMTP_PASSWORD),
    encodeURI(SMTP_PASSWORD),
    Buffer.from(SMTP_PASSWORD).toString('base64'),
  ])
    assert.ok(!text.includes(s), `the SMTP password is in ${where}`);
}

test('STARTTLS with AUTH: the invitation is mailed to the invitee, the answer holds no link, and the link makes the account', async () => {
  const w = await world();
  try {
    const res = await checked(w.logged, w.owner, 'POST', `/app/api/workspaces/${w.ws}/invitations`, {
      body: { email: 'Newcomer@Example.com', role: 'admin' },
    });
    assert.equal(res.statusCode, 201, res.body);
    const answer = res.json();
    assert.equal(answer.mailed, true);
    assert.equal(answer.invitation_url, undefined);
    assert.equal(answer.mail_error, undefined);
    assert.doesNotMatch(res.body, /\/app\/invite\//, 'the link goes to the invitee only');

    const mail = await w.smtp.nth(1);
    assert.deepEqual(mail.to, ['newcomer@example.com']);
    assert.equal(mail.from, FROM);
    assert.equal(mail.headers.from, `Footfall <${FROM}>`);
    assert.equal(mail.headers.to, 'newcomer@example.com');
    assert.equal(mail.headers.subject, 'Invitation to "Acme <Analytics>" on footfall');
    assert.ok(mail.secure, 'upgraded with STARTTLS');
    assert.equal(mail.user, SMTP_USER, 'signed in with the URL credentials');
    assert.match(
      mail.body,
      /Test Person \(p\d+-\w+@example\.com\) invited you to the workspace "Acme <Analytics>" on footfall, as an admin/,
    );
    assert.match(mail.body, /Acme &#60;Analytics&#62;/, 'the HTML part escapes the name');
    const [, page, secret] = LINK.exec(mail.body)!;
    assert.equal(page, 'invite');

    const accepted = await checked(w.logged, null, 'POST', '/app/api/invitations/accept', {
      body: { invitation: secret, password: 'the newcomer password', name: 'New' },
    });
    assert.equal(accepted.statusCode, 200, accepted.body);
    assert.ok(sessionCookieOf(accepted));
    const found = await w.h.people.findUserByEmail('newcomer@example.com');
    assert.ok(found, 'the account was made');
    assert.equal(await w.h.people.getRole(w.ws, found.user.id), 'admin');
    assertNoPassword(w.log(), 'the log');
    assert.ok(w.log().includes('incoming request'), 'requests were logged');
  } finally {
    await w.close();
  }
});

test('a reset is mailed to the account and its link sets the password; an email without one gets the same answer and no mail', async () => {
  const w = await world();
  try {
    const p = await person(w.h, { workspaceId: w.ws, role: 'viewer' });
    const ask = (email: string) => checked(w.logged, null, 'POST', '/app/api/password-reset', { body: { email } });
    const nobody = await ask('nobody@example.com');
    const known = await ask(p.email.toUpperCase());
    assert.deepEqual([known.statusCode, known.body], [nobody.statusCode, nobody.body], 'the same answer');
    assert.equal(known.json().mail_configured, true);
    assert.doesNotMatch(known.body, /\/app\/reset\//);

    // the mailer's close waits for the work after each answer: every mail to go out has gone
    await w.h.container.mailer!.close();
    assert.equal(w.smtp.received.length, 1, 'no mail for the email without an account');
    const mail = w.smtp.received[0];
    assert.deepEqual(mail.to, [p.email]);
    assert.equal(mail.headers.subject, 'Choose a new password for footfall');
    const [, page, secret] = LINK.exec(mail.body)!;
    assert.equal(page, 'reset');
    const done = await checked(w.logged, null, 'POST', '/app/api/password-reset/accept', {
      body: { reset: secret, password: 'my brand new password' },
    });
    assert.equal(done.statusCode, 200, done.body);
    const signedIn = await checked(w.logged, null, 'POST', '/app/api/session', {
      body: { email: p.email, password: 'my brand new password' },
    });
    assert.equal(signedIn.statusCode, 200);
    assertNoPassword(w.log(), 'the log');
    assert.ok(!w.log().includes(secret), 'the reset secret is in no log line');
  } finally {
    await w.close();
  }
});

test('smtps://: TLS from the first byte, the invitation mailed', async () => {
  const w = await world({ smtps: true });
  try {
    const res = await checked(w.logged, w.owner, 'POST', `/app/api/workspaces/${w.ws}/invitations`, {
      body: { email: 'tls@example.com', role: 'viewer' },
    });
    assert.deepEqual([res.statusCode, res.json().mailed], [201, true]);
    const mail = await w.smtp.nth(1);
    assert.deepEqual([mail.to, mail.secure, mail.user], [['tls@example.com'], true, SMTP_USER]);
    assert.match(mail.body, /as a viewer/);
    assertNoPassword(w.log(), 'the log');
  } finally {
    await w.close();
  }
});
