// `footfall user invite` with FOOTFALL_SMTP_URL set: the invitation is mailed to the invitee through a
// real SMTP server (STARTTLS, AUTH) and the command prints no link; the password is in no output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FOOTFALL_BIN } from '../helpers/footfall-bin.js';
import { CLI_ENV } from './fixtures/cli-run.js';
import { SMTP_PASSWORD, startSmtpServer, TEST_CA_FILE } from '../http/helpers/smtp-test-server.js';

function footfall(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(process.execPath, [FOOTFALL_BIN, ...args], { env: { ...CLI_ENV, ...env } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

test('user invite mails the link to the invitee and prints none; without FOOTFALL_MAIL_FROM the command refuses to start', async () => {
  const smtp = await startSmtpServer();
  const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-invite-mail-')), 'data');
  try {
    const env = {
      FOOTFALL_DATA_DIR: dataDir,
      FOOTFALL_PUBLIC_URL: 'https://dash.example.com',
      FOOTFALL_SMTP_URL: smtp.url,
      FOOTFALL_MAIL_FROM: 'Footfall <footfall@example.com>',
      FOOTFALL_SMTP_CA: TEST_CA_FILE,
    };
    const created = await footfall(env, 'workspace', 'create', '--name', 'Mailed', '--plan', 'pro', '--json');
    assert.equal(created.code, 0, created.stderr);
    const ws = JSON.parse(created.stdout).workspace_id;
    const invited = await footfall(
      env,
      'user',
      'invite',
      '--workspace',
      ws,
      '--email',
      'Invitee@Example.com',
      '--role',
      'viewer',
      '--json',
    );
    assert.equal(invited.code, 0, invited.stderr);
    const answer = JSON.parse(invited.stdout);
    assert.deepEqual([answer.mailed, answer.invitation_url, answer.mail_error], [true, undefined, undefined]);
    const mail = await smtp.nth(1);
    assert.deepEqual([mail.to, mail.headers.subject, mail.secure], [['invitee@example.com'], 'Invitation to "Mailed" on footfall', true]);
    assert.match(mail.body, /The operator of footfall invited you to the workspace "Mailed" on footfall, as a viewer/);
    assert.match(mail.body, /https:\/\/dash\.example\.com\/app\/invite\/[0-9A-Za-z]{32}/);
    const text = await footfall(env, 'user', 'invite', '--workspace', ws, '--email', 'second@example.com', '--role', 'admin');
    assert.match(text.stdout, /was mailed to second@example\.com/);
    assert.doesNotMatch(text.stdout, /\/app\/invite\//);

    const { FOOTFALL_MAIL_FROM: _, ...noFrom } = env;
    const refused = await footfall(noFrom, 'user', 'list', '--workspace', ws, '--json');
    assert.equal(refused.code, 2);
    assert.match(refused.stdout + refused.stderr, /FOOTFALL_MAIL_FROM must be set with FOOTFALL_SMTP_URL/);
    for (const out of [invited, text, refused])
      for (const s of [SMTP_PASSWORD, encodeURIComponent(SMTP_PASSWORD)]) assert.ok(!(out.stdout + out.stderr).includes(s));
  } finally {
    await smtp.close();
    fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
  }
});
