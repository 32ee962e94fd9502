// The mail that asks an outside address to confirm a report subscription: nothing else is sent to it
// until the link is followed, so a mistyped or hostile address gets this one mail at most.
import type { ReportPeriod } from '../../domain/report-periods.js';
import type { MailMessage } from '../../ports/mailer.js';
import { escapeHtml, oneLine } from '../../domain/html-text.js';

export function confirmMessage(m: {
  to: string;
  siteName: string;
  tenantName: string | null;
  period: ReportPeriod;
  url: string;
  expiresAt: string;
}): MailMessage {
  const of = oneLine(m.tenantName ? `${m.siteName}, tenant ${m.tenantName}` : m.siteName);
  const every = m.period === 'week' ? 'weekly' : 'monthly';
  const lines = [
    `Someone asked footfall to mail the ${every} analytics report of ${of} to ${m.to}.`,
    `Confirm with the link below (it works until ${m.expiresAt}, UTC) and the reports start with the next one due. If you did not ask for it, ignore this mail: nothing more is sent.`,
  ];
  const body = lines.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n');
  return {
    to: m.to,
    subject: `Confirm the ${every} report of ${of}`,
    text: `${lines.join('\n\n')}\n\nConfirm: ${m.url}\n`,
    html: `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Confirm the ${escapeHtml(every)} report</title></head><body style="font-family: sans-serif; line-height: 1.5">\n${body}\n<p><a href="${escapeHtml(m.url)}">Confirm the ${escapeHtml(every)} report</a></p>\n<p style="color: #555">${escapeHtml(m.url)}</p>\n</body></html>\n`,
  };
}
