// The Mailer over SMTP, through nodemailer: smtps:// is TLS from the first byte, smtp:// upgrades with
// STARTTLS when the server offers it. Each message opens its own connection (no pool): an invitation or
// a reset is rare, and a connection kept open would only go stale between them. A report sweep sends
// many at once: batch() gives it a pooled mailer (a few connections, each greeted, upgraded and signed
// in once), closed when the sweep ends.
import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import type { MailMessage, MailOutcome, Mailer } from '../ports/mailer.js';

export interface SmtpMailerOptions {
  secure: boolean;
  host: string;
  port: number;
  user?: string;
  password?: string;
  /** the From of every message */
  from: string;
  /** PEM certificates to trust besides the system's (a private CA); never a switch that trusts anything */
  ca?: string | Buffer;
  /** the bound of one send, connecting included: a hung server costs a request this long at most */
  timeoutMs?: number;
  /** keep up to this many connections open and send over them in turn (batch()); absent: one per message */
  pooled?: number;
}

/** Connections a batch keeps open: the report sweep sends 4 at a time. */
const BATCH_CONNECTIONS = 4;

/** A few seconds: long enough for a slow server's greeting and TLS, short enough for a request to wait. */
export const DEFAULT_MAIL_TIMEOUT_MS = 5000;

export class SmtpMailer implements Mailer {
  private readonly transport: Transporter;
  private readonly timeoutMs: number;
  private readonly inFlight = new Set<Promise<MailOutcome>>();
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly options: SmtpMailerOptions) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_MAIL_TIMEOUT_MS;
    this.transport = nodemailer.createTransport({
      host: options.host,
      port: options.port,
      ...(options.pooled ? { pool: true, maxConnections: options.pooled, maxMessages: 100 } : {}),
      secure: options.secure,
      auth: options.user !== undefined ? { user: options.user, pass: options.password ?? '' } : undefined,
      tls: options.ca !== undefined ? { ca: options.ca } : undefined,
      connectionTimeout: this.timeoutMs,
      greetingTimeout: this.timeoutMs,
      socketTimeout: this.timeoutMs,
      dnsTimeout: this.timeoutMs,
      // nodemailer logs nothing unless asked: kept so, its debug output would hold the AUTH exchange
      logger: false,
      debug: false,
    });
  }

  send(message: MailMessage): Promise<MailOutcome> {
    const sending = this.sendBounded(message);
    this.inFlight.add(sending);
    void sending.finally(() => this.inFlight.delete(sending));
    return sending;
  }

  batch(): SmtpMailer {
    return new SmtpMailer({ ...this.options, pooled: BATCH_CONNECTIONS });
  }

  later(work: () => Promise<void>): void {
    const running = work().catch(() => undefined);
    this.pending.add(running);
    void running.finally(() => this.pending.delete(running));
  }

  private async sendBounded(message: MailMessage): Promise<MailOutcome> {
    let timer: NodeJS.Timeout | undefined;
    // nodemailer's own timeouts bound each step; this bounds the whole (a server that answers every
    // step just in time could otherwise hold a request for several of them).
    const deadline = new Promise<MailOutcome>((resolve) => {
      timer = setTimeout(
        () => resolve({ sent: false, reason: `the mail server did not take the message within ${this.timeoutMs / 1000} seconds` }),
        this.timeoutMs,
      );
    });
    const attempt = this.transport
      .sendMail({
        from: this.options.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
        headers: message.headers,
      })
      .then((): MailOutcome => ({ sent: true }))
      .catch((err: unknown): MailOutcome => ({ sent: false, reason: reasonOf(err, this.options) }));
    try {
      return await Promise.race([attempt, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Waits for the work and the messages under way (each send within its bound), then closes. */
  async close(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
    await Promise.allSettled([...this.inFlight]);
    this.transport.close();
  }
}

/**
 * What went wrong, in words built here from nodemailer's error code and the server's reply code: never
 * its message, which can quote the server's reply or the exchange, and so what was sent.
 */
export function reasonOf(err: unknown, where: Pick<SmtpMailerOptions, 'host' | 'port'>): string {
  const e = (err ?? {}) as { code?: unknown; responseCode?: unknown; syscall?: unknown };
  // a socket's own failure keeps its system call: connect (refused, unreachable) or getaddrinfo (no such host)
  const code = e.syscall === 'connect' || e.syscall === 'getaddrinfo' ? 'ECONNECTION' : typeof e.code === 'string' ? e.code : undefined;
  const reply = typeof e.responseCode === 'number' ? ` (reply ${e.responseCode})` : '';
  const server = `the mail server at ${where.host}:${where.port}`;
  switch (code) {
    case 'ECONNECTION':
    case 'EDNS':
      return `${server} could not be reached`;
    case 'ETIMEDOUT':
      return `${server} did not answer in time`;
    case 'ESOCKET':
      return `the connection to ${server} failed`;
    case 'ETLS':
      return `TLS with ${server} failed (is its certificate trusted? FOOTFALL_SMTP_CA names extra ones)`;
    case 'EAUTH':
    case 'ENOAUTH':
      return `${server} refused the user and password of FOOTFALL_SMTP_URL${reply}`;
    case 'EENVELOPE':
      return `${server} refused the sender or the recipient${reply}`;
    case 'EMESSAGE':
    case 'EPROTOCOL':
      return `${server} refused the message${reply}`;
    default:
      return `${server} did not take the message${code ? ` (${code})` : ''}${reply}`;
  }
}
