// The composition root's part for outgoing mail: the SMTP mailer the configuration names, or none. Kept
// beside container.ts, which wires it into the server; commands that mail (footfall user invite) open it here.
import fs from 'node:fs';
import type { Config } from './config/config.js';
import type { Mailer } from './ports/mailer.js';

/**
 * The mailer FOOTFALL_SMTP_URL names (its From is FOOTFALL_MAIL_FROM), or undefined when it is unset:
 * then no mail is sent and links go to whoever made them. nodemailer is loaded only when mail is set.
 */
export async function openMailer(config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'smtpCa'>): Promise<Mailer | undefined> {
  const smtp = config.smtpUrl;
  if (smtp === undefined) return undefined;
  const { SmtpMailer } = await import('./mail/smtp-mailer.js');
  return new SmtpMailer({
    secure: smtp.secure,
    host: smtp.host,
    port: smtp.port,
    user: smtp.user,
    password: smtp.password,
    from: config.mailFrom!,
    ca: config.smtpCa !== undefined ? fs.readFileSync(config.smtpCa) : undefined,
  });
}
