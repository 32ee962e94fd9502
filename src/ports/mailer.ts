// Outgoing mail: one message to one person (an invitation, a password reset link). The implementation
// speaks SMTP (src/mail/smtp-mailer.ts); the composition root picks it when FOOTFALL_SMTP_URL is set.

export interface MailMessage {
  /** one address */
  to: string;
  subject: string;
  text: string;
  html: string;
  /** extra header fields, e.g. a report's List-Unsubscribe (RFC 8058); names and values hold no line break */
  headers?: Record<string, string>;
}

/**
 * Whether the mail server took the message. A failure is an outcome, not a throw: the caller decides
 * what the person asking is told. `reason` is written for people and holds nothing secret (no
 * password, no message content).
 */
export type MailOutcome = { sent: true } | { sent: false; reason: string };

export interface Mailer {
  /** Resolves within the mailer's time bound, whatever the server does; never rejects. */
  send(message: MailMessage): Promise<MailOutcome>;
  /**
   * Runs `work` (which ends in a send) after the answer it belongs to, e.g. a reset's look-up and mail:
   * close() waits for it, so a server that stops drops no mail it was asked for. A rejection is
   * swallowed: `work` reports its own failures.
   */
  later(work: () => Promise<void>): void;
  /** Waits for the work under way and the messages being sent (each within its bound), then closes. */
  close(): Promise<void>;
  /**
   * A mailer for many messages in a row (a report sweep): it may keep its connections open between them;
   * the caller closes it when the batch is done. Absent: use this one.
   */
  batch?(): Mailer;
}
