// A Mailer that keeps what it is given, for tests that read the links mailed without a mail server
// (test/http/mail-smtp.test.ts speaks to a real one).
import type { MailMessage, MailOutcome, Mailer } from '../../../src/ports/mailer.js';
import { until } from '../../helpers/until.js';

export class CapturingMailer implements Mailer {
  readonly sent: MailMessage[] = [];
  constructor(private readonly outcome: MailOutcome = { sent: true }) {}

  async send(message: MailMessage): Promise<MailOutcome> {
    if (this.outcome.sent) this.sent.push(message);
    return this.outcome;
  }

  private readonly pending = new Set<Promise<void>>();

  later(work: () => Promise<void>): void {
    const running = work().catch(() => undefined);
    this.pending.add(running);
    void running.finally(() => this.pending.delete(running));
  }

  /** Once every piece of work handed to later() has ended: what was to be mailed has been. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  async close(): Promise<void> {
    await this.settled();
  }

  /** The n-th message (1-based), waited for: a reset's mail goes out after the answer. */
  async nth(n: number): Promise<MailMessage> {
    await until(() => this.sent.length >= n, `mail #${n} sent (${this.sent.length} so far)`);
    return this.sent[n - 1];
  }
}

/** The footfall link in a mail's text. */
export function linkIn(message: Pick<MailMessage, 'text'>): string {
  const m = /https?:\/\/\S+\/app\/(?:invite|reset|sign-in)\/[0-9A-Za-z]{32}/.exec(message.text);
  if (!m) throw new Error(`no link in: ${message.text}`);
  return m[0];
}
