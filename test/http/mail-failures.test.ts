// A mail server that refuses, is down or hangs: the invitation is still made and the answer says
// mailed: false, MAIL_NOT_SENT and why (nothing secret), within the mailer's bound; a reset's answer
// stays the one every email gets, and the failure is logged without the link or the address.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { buildApp } from '../../src/app.js';
import { SmtpMailer } from '../../src/mail/smtp-mailer.js';
import { harness, type Harness } from './helpers/harness.js';
import { checked, person } from './helpers/app-api.js';
import { closedPort, SMTP_PASSWORD, startSilentServer, startSmtpServer, TEST_CA_FILE } from './helpers/smtp-test-server.js';

async function withMail(smtpUrl: string, run: (h: Harness, log: () => string) => Promise<void>): Promise<void> {
  const h = await harness({ config: { smtpUrl, mailFrom: 'footfall@example.com', smtpCa: TEST_CA_FILE } });
  let log = '';
  const stream = new Writable({ write: (chunk, _enc, done) => ((log += chunk.toString()), done()) });
  const app = await buildApp(h.container, { logger: { level: 'trace', stream } });
  try {
    await run({ ...h, app }, () => log);
  } finally {
    await app.close();
    await h.close();
  }
}

const secretSpellings = [SMTP_PASSWORD, encodeURIComponent(SMTP_PASSWORD)];

async function inviteFails(h: Harness, why: RegExp): Promise<number> {
  const ws = (await h.workspace('pro')).id;
  const owner = await person(h, { workspaceId: ws, role: 'owner' });
  const started = Date.now();
  const res = await checked(h, owner, 'POST', `/app/api/workspaces/${ws}/invitations`, {
    body: { email: 'later@example.com', role: 'viewer' },
  });
  const took = Date.now() - started;
  assert.equal(res.statusCode, 201, res.body);
  const answer = res.json();
  assert.equal(answer.mailed, false);
  assert.equal(answer.invitation_url, undefined, 'the link is for the invitee only, even when the mail failed');
  assert.equal(answer.mail_error.code, 'MAIL_NOT_SENT');
  assert.match(answer.mail_error.message, why);
  assert.match(answer.mail_error.message, /Invite later@example\.com again/);
  for (const s of secretSpellings) assert.ok(!res.body.includes(s), 'the SMTP password is in the answer');
  const open = (await checked(h, owner, 'GET', `/app/api/workspaces/${ws}/invitations`)).json().invitations;
  assert.deepEqual(
    open.map((i: { email: string }) => i.email),
    ['later@example.com'],
    'the invitation was made: it can be sent again or revoked',
  );
  return took;
}

test('a refused connection: the invitation is made, mailed: false with MAIL_NOT_SENT; a reset answers as ever and logs the failure', async () => {
  const port = await closedPort();
  await withMail(`smtp://footfall-mailer:${encodeURIComponent(SMTP_PASSWORD)}@127.0.0.1:${port}`, async (h, log) => {
    await inviteFails(h, /could not be reached/);
    const p = await person(h);
    const nobody = await checked(h, null, 'POST', '/app/api/password-reset', { body: { email: 'nobody@example.com' } });
    const known = await checked(h, null, 'POST', '/app/api/password-reset', { body: { email: p.email } });
    assert.deepEqual([known.statusCode, known.body], [nobody.statusCode, nobody.body]);
    // the mailer's close waits for the work after each answer: the reset's attempt has ended
    await h.container.mailer!.close();
    const line = log()
      .split('\n')
      .find((l) => l.includes('password reset mail was not sent'));
    assert.ok(line, 'the failure is logged');
    assert.match(line, /could not be reached/);
    assert.ok(!line.includes(p.email) && !line.includes(p.email.split('@')[0]), 'the address is not in the line');
    assert.doesNotMatch(log(), /\/app\/reset\/[0-9A-Za-z]{32}/, 'no reset link is logged');
    for (const s of secretSpellings) assert.ok(!log().includes(s), 'the SMTP password is in the log');
  });
});

test('a wrong SMTP password: MAIL_NOT_SENT saying the server refused the credentials, without them', async () => {
  const smtp = await startSmtpServer();
  try {
    await withMail(`smtp://footfall-mailer:${encodeURIComponent('not the password')}@127.0.0.1:${smtp.port}`, async (h, log) => {
      await inviteFails(h, /refused the user and password of FOOTFALL_SMTP_URL/);
      assert.equal(smtp.received.length, 0);
      assert.ok(smtp.refusedLogins >= 1);
      assert.ok(!log().includes('not the password'));
    });
  } finally {
    await smtp.close();
  }
});

test('a hung mail server costs the request the bound (5 s), not more', async () => {
  const silent = await startSilentServer();
  try {
    await withMail(`smtp://127.0.0.1:${silent.port}`, async (h) => {
      const took = await inviteFails(h, /did not (answer|take the message) (in time|within 5 seconds)/);
      assert.ok(took >= 4000 && took < 7000, `${took} ms`);
    });
  } finally {
    await silent.close();
  }
});

test('the mailer alone: a shorter bound is kept, and close waits for a send under way', async () => {
  const silent = await startSilentServer();
  try {
    const mailer = new SmtpMailer({ secure: false, host: '127.0.0.1', port: silent.port, from: 'f@example.com', timeoutMs: 300 });
    const started = Date.now();
    const sending = mailer.send({ to: 'a@example.com', subject: 's', text: 't', html: '<p>t</p>' });
    await mailer.close();
    assert.deepEqual(await sending, { sent: false, reason: 'the mail server did not take the message within 0.3 seconds' });
    assert.ok(Date.now() - started < 2000);
  } finally {
    await silent.close();
  }
});
