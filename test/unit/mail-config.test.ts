// FOOTFALL_SMTP_URL, FOOTFALL_MAIL_FROM and FOOTFALL_SMTP_CA: parsed at start, refused with a clear
// message, and the SMTP password in no message and no printed or logged form of the config.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import util from 'node:util';
import { ConfigError, loadConfig } from '../../src/config/config.js';

const PASSWORD = 's3cr3t/p@ss:word';
const URL_WITH_PASSWORD = `smtp://mailer:${encodeURIComponent(PASSWORD)}@mail.example.com`;
const load = (env: Record<string, string>) => loadConfig({}, env);
const problemsOf = (env: Record<string, string>): string => {
  try {
    load(env);
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.message;
  }
  assert.fail('the config was accepted');
};

test('smtp:// and smtps:// with credentials: host, port (587 and 465 by default), user and password', () => {
  const c = load({ FOOTFALL_SMTP_URL: URL_WITH_PASSWORD, FOOTFALL_MAIL_FROM: 'Footfall <footfall@example.com>' });
  assert.deepEqual(
    { ...c.smtpUrl, password: c.smtpUrl?.password },
    { secure: false, host: 'mail.example.com', port: 587, user: 'mailer', password: PASSWORD, display: 'smtp://mail.example.com' },
  );
  assert.equal(c.mailFrom, 'Footfall <footfall@example.com>');
  const s = load({ FOOTFALL_SMTP_URL: 'smtps://mail.example.com', FOOTFALL_MAIL_FROM: 'f@example.com' }).smtpUrl!;
  assert.deepEqual([s.secure, s.port, s.user, s.password], [true, 465, undefined, undefined]);
  assert.equal(load({ FOOTFALL_SMTP_URL: 'smtp://[::1]:2525', FOOTFALL_MAIL_FROM: 'f@example.com' }).smtpUrl!.host, '::1');
  const none = load({});
  assert.deepEqual([none.smtpUrl, none.mailFrom, none.smtpCa], [undefined, undefined, undefined]);
});

test('the SMTP password is in no JSON, no util.inspect and no pino-style serialization of the config', () => {
  const c = load({ FOOTFALL_SMTP_URL: URL_WITH_PASSWORD, FOOTFALL_MAIL_FROM: 'f@example.com' });
  for (const printed of [JSON.stringify(c), util.inspect(c, { depth: 5 }), JSON.stringify({ ...c, smtpUrl: { ...c.smtpUrl } })]) {
    assert.ok(!printed.includes(PASSWORD) && !printed.includes(encodeURIComponent(PASSWORD)), printed);
    assert.match(printed, /mail\.example\.com/);
  }
});

test('FOOTFALL_MAIL_FROM is required with FOOTFALL_SMTP_URL, and neither goes without the other', () => {
  assert.match(problemsOf({ FOOTFALL_SMTP_URL: URL_WITH_PASSWORD }), /FOOTFALL_MAIL_FROM must be set with FOOTFALL_SMTP_URL/);
  assert.match(problemsOf({ FOOTFALL_MAIL_FROM: 'f@example.com' }), /FOOTFALL_MAIL_FROM is set but FOOTFALL_SMTP_URL is not/);
  assert.match(problemsOf({ FOOTFALL_SMTP_CA: '/tmp/ca.pem' }), /FOOTFALL_SMTP_CA is set but FOOTFALL_SMTP_URL is not/);
  for (const from of ['not an address', 'a@b', 'Footfall <f@example.com>\r\nBcc: x@example.com', 'a@example.com, b@example.com'])
    assert.match(
      problemsOf({ FOOTFALL_SMTP_URL: URL_WITH_PASSWORD, FOOTFALL_MAIL_FROM: from }),
      /FOOTFALL_MAIL_FROM: .* must be an address/,
    );
});

test('a bad FOOTFALL_SMTP_URL is refused by name, its value (and so its password) never echoed', () => {
  for (const [url, why] of [
    [`http://mailer:${encodeURIComponent(PASSWORD)}@mail.example.com`, /must be an smtp:\/\/ or smtps:\/\/ URL/],
    [`http://mailer:${PASSWORD}@mail.example.com`, /is not a URL/],
    [`smtp://mailer:${PASSWORD}@mail.example.com/path`, /must have no path|is not a URL/],
    [`smtp://:${encodeURIComponent(PASSWORD)}@mail.example.com`, /has a password but no user/],
    [`smtp://mailer:${PASSWORD}`, /is not a URL|names no host|must have no path/],
    [`smtp://mailer:%E0%A4%A@mail.example.com`, /percent-encoded/],
  ] as const) {
    const message = problemsOf({ FOOTFALL_SMTP_URL: url, FOOTFALL_MAIL_FROM: 'f@example.com' });
    assert.match(message, /FOOTFALL_SMTP_URL \(its value not shown\)/, url);
    assert.match(message, why, url);
    for (const part of [PASSWORD, encodeURIComponent(PASSWORD), 's3cr3t']) assert.ok(!message.includes(part), message);
  }
});
