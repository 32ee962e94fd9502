// Outgoing mail: one message to one person (an invitation, a password reset link). The implementation
// speaks SMTP (src/mail/smtp-mailer.ts); the composition root picks it when FOOTFALL_SMTP_URL is set.

export interface MailMessage {
  /** one address */
  to: string;
  subject: string;
  text: string;
  html: string;
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
  close(): Promise<void>;
}
