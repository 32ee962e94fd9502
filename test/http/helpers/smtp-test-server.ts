// A real SMTP server on loopback for the mail tests (the smtp-server package): port 0, AUTH required,
// STARTTLS offered (smtp://) or TLS from the first byte (smtps://), with the self-signed certificate of
// test/fixtures/smtp. It keeps every message it takes, and how it came.
import fs from 'node:fs';
import net from 'node:net';
import { SMTPServer } from 'smtp-server';
import { until } from '../../helpers/until.js';

const FIXTURES = new URL('../../fixtures/smtp/', import.meta.url);
export const TEST_CA_FILE = new URL('cert.pem', FIXTURES).pathname;
export const SMTP_USER = 'footfall-mailer';
/** percent-encoding in the URL matters: a password with characters a URL must escape */
export const SMTP_PASSWORD = 'pw/with:odd@chars#and spaces';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** the message's headers, lower-case names */
  headers: Record<string, string>;
  /** the whole message with quoted-printable undone, to search for text and links */
  body: string;
  /** over TLS (STARTTLS or smtps) */
  secure: boolean;
  user: string | undefined;
}

export interface SmtpTestServer {
  port: number;
  /** FOOTFALL_SMTP_URL for this server, the credentials percent-encoded */
  url: string;
  received: ReceivedMail[];
  /** AUTH attempts refused (a wrong password) */
  refusedLogins: number;
  /** the next `n` messages are refused with 451 (a temporary failure: the sender is to try again later) */
  refuseNext(n: number): void;
  /** messages refused so far by refuseNext */
  readonly refusedMessages: number;
  /** waits for the n-th message (1-based) */
  nth(n: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export async function startSmtpServer(opts: { smtps?: boolean } = {}): Promise<SmtpTestServer> {
  const received: ReceivedMail[] = [];
  const state = { refusedLogins: 0, refuse: 0, refusedMessages: 0 };
  const server = new SMTPServer({
    secure: opts.smtps === true,
    key: fs.readFileSync(new URL('key.pem', FIXTURES)),
    cert: fs.readFileSync(new URL('cert.pem', FIXTURES)),
    authMethods: ['PLAIN', 'LOGIN'],
    // no AUTH before TLS (the default): a client that skipped STARTTLS could not sign in
    logger: false,
    onAuth(auth, _session, done) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) return done(null, { user: auth.username });
      state.refusedLogins++;
      done(new Error('Invalid username or password'));
    },
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (state.refuse > 0) {
          state.refuse--;
          state.refusedMessages++;
          return done(Object.assign(new Error('Try again later'), { responseCode: 451 }));
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        const [head] = raw.split(/\r?\n\r?\n/, 1);
        const headers: Record<string, string> = {};
        for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
          const i = line.indexOf(':');
          if (i > 0) headers[line.slice(0, i).toLowerCase()] = decodeWords(line.slice(i + 1).trim());
        }
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          headers,
          body: undoQuotedPrintable(raw),
          secure: session.secure,
          user: session.user,
        });
        done();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as net.AddressInfo).port;
  const scheme = opts.smtps ? 'smtps' : 'smtp';
  return {
    port,
    url: `${scheme}://${encodeURIComponent(SMTP_USER)}:${encodeURIComponent(SMTP_PASSWORD)}@127.0.0.1:${port}`,
    received,
    get refusedLogins() {
      return state.refusedLogins;
    },
    refuseNext(n) {
      state.refuse = n;
    },
    get refusedMessages() {
      return state.refusedMessages;
    },
    async nth(n) {
      await until(() => received.length >= n, `mail #${n} received (${received.length} so far)`);
      return received[n - 1];
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** RFC 2047 encoded words (=?UTF-8?Q?...?= and =?UTF-8?B?...?=), as a mail client shows a header. */
function decodeWords(value: string): string {
  return value
    .replace(/(\?=)\s+(=\?)/g, '$1$2')
    .replace(/=\?UTF-8\?([QB])\?([^?]*)\?=/gi, (_, enc: string, text: string) =>
      enc.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(undoQuotedPrintable(text.replace(/_/g, ' ')), 'latin1').toString('utf8'),
    );
}

function undoQuotedPrintable(s: string): string {
  return s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
}

/** A server that takes connections and never says a word: a hung mail server. */
export async function startSilentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port on loopback that nothing listens on: a refused connection. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
