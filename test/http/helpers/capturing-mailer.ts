// A Mailer that keeps what it is given, for tests that read the links mailed without a mail server
// (test/http/mail-smtp.test.ts speaks to a real one).
import type { MailMessage, MailOutcome, Mailer } from '../../../src/ports/mailer.js';

export class CapturingMailer implements Mailer {
  readonly sent: MailMessage[] = [];
  constructor(private readonly outcome: MailOutcome = { sent: true }) {}

  async send(message: MailMessage): Promise<MailOutcome> {
    if (this.outcome.sent) this.sent.push(message);
    return this.outcome;
  }

  async close(): Promise<void> {}

  /** The n-th message (1-based), waited for: a reset's mail goes out after the answer. */
  async nth(n: number, timeoutMs = 5000): Promise<MailMessage> {
    const end = Date.now() + timeoutMs;
    while (this.sent.length < n) {
      if (Date.now() > end) throw new Error(`no mail #${n} within ${timeoutMs} ms (${this.sent.length} sent)`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return this.sent[n - 1];
  }
}

/** The footfall link in a mail's text. */
export function linkIn(message: Pick<MailMessage, 'text'>): string {
  const m = /https?:\/\/\S+\/app\/(?:invite|reset|sign-in)\/[0-9A-Za-z]{32}/.exec(message.text);
  if (!m) throw new Error(`no link in: ${message.text}`);
  return m[0];
}
