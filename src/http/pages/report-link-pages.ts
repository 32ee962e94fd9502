// The two pages a report subscriber reaches from a mail, served whole by the server (no script):
//   /app/reports/confirm/<secret>       an outside address confirms its subscription
//   /app/reports/unsubscribe/<token>    any subscriber ends theirs (RFC 8058 one-click)
// A GET only shows a button: mail scanners and link previews fetch links, and must neither confirm nor
// unsubscribe anyone. The button's POST does it; so does a mail client's own one-click POST
// (`List-Unsubscribe=One-Click`, form-encoded). The link is the whole credential: no session, so no
// CSRF token either (there is nothing of the visitor's a forged POST could act for).
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppDeps } from '../../services/deps.js';
import { confirmByLink, unsubscribeByLink } from '../../services/report-mail/subscriptions.js';
import { escapeHtml } from '../../domain/html-text.js';

const STYLE =
  'body{font-family:system-ui,sans-serif;line-height:1.5;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a;background:#fff}' +
  'button{font:inherit;padding:.5rem 1rem;border:1px solid #1d4ed8;border-radius:.375rem;background:#1d4ed8;color:#fff;cursor:pointer}' +
  'a{color:#1d4ed8}';
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');
const POLICY = `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;

function page(reply: FastifyReply, status: number, title: string, body: string) {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('Cache-Control', 'no-store')
    .header('Referrer-Policy', 'no-referrer')
    .header('Content-Security-Policy', POLICY)
    .send(
      `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
        `<title>${escapeHtml(title)} · footfall</title><style>${STYLE}</style></head>\n<body><main>\n<h1>${escapeHtml(title)}</h1>\n${body}\n</main></body></html>\n`,
    );
}

/** pages, not API operations: out of the OpenAPI document */
const HIDDEN = { schema: { hide: true } };

const button = (label: string) => `<form method="post"><button type="submit">${escapeHtml(label)}</button></form>`;

export async function registerReportLinkPages(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const reports = deps.reports;
  if (!reports) return;
  await app.register(async (scope) => {
    // the one-click POST is form-encoded; nothing in it is read (the link is the credential)
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 1024 }, (_req, _body, done) =>
      done(null, {}),
    );
    const both = { reports, catalog: deps.catalog, clock: deps.clock };

    scope.get<{ Params: { token: string } }>('/app/reports/unsubscribe/:token', HIDDEN, (_req, reply) =>
      page(reply, 200, 'Unsubscribe from this report', `<p>Stop mailing this report to your address?</p>\n${button('Unsubscribe')}`),
    );
    scope.post<{ Params: { token: string } }>('/app/reports/unsubscribe/:token', HIDDEN, async (req, reply) => {
      const r = await unsubscribeByLink(both, req.params.token);
      if (r === 'invalid')
        return page(reply, 404, 'This link is not valid', '<p>Copy the whole link from the mail, or unsubscribe in the dashboard.</p>');
      return page(
        reply,
        200,
        'Unsubscribed',
        r === 'done' ? '<p>No more of these reports will be mailed to you.</p>' : '<p>This address was not subscribed (any more).</p>',
      );
    });

    scope.get<{ Params: { secret: string } }>('/app/reports/confirm/:secret', HIDDEN, (_req, reply) =>
      page(
        reply,
        200,
        'Confirm the report subscription',
        `<p>Mail this report to your address from its next period on?</p>\n${button('Confirm')}`,
      ),
    );
    scope.post<{ Params: { secret: string } }>('/app/reports/confirm/:secret', HIDDEN, async (req, reply) => {
      const sub = await confirmByLink(both, req.params.secret);
      if (!sub)
        return page(
          reply,
          404,
          'This link is unknown, used or expired',
          '<p>Ask whoever subscribed you to add your address again: a new link comes by mail.</p>',
        );
      const every = sub.period === 'week' ? 'weekly' : 'monthly';
      return page(
        reply,
        200,
        'Subscription confirmed',
        `<p>The ${every} report will be mailed to ${escapeHtml(sub.email)} from the next one due.</p>`,
      );
    });
  });
}
