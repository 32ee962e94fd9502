// The pages of the browser half: /app and each of its page paths, and /embed, answer one HTML shell that
// loads the bundle (web-assets.ts); the page draws itself from its path. The shell is never cached (a
// release changes the names it loads) and runs under a strict Content-Security-Policy: this origin
// only, no inline script or style, no framing. `/` sends a browser to /app and tells anything else
// where things are.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { WebBundle } from './web-assets.js';

/** The dashboard's page paths (the page application's router in web/src/main.tsx draws each). */
export const APP_PAGE_PATHS = [
  '/app',
  '/app/sites/:site_id',
  '/app/invite/:secret',
  '/app/reset/:secret',
  '/app/sign-in/:secret',
  '/app/settings/:workspace_id',
  '/app/settings/:workspace_id/:section',
] as const;

/**
 * Pages drawn for a bearer rather than a session, with less chrome. `/share/:slug` joins them when
 * share links exist: the same shell, its frame-ancestors from the share's settings.
 */
export const EMBED_PAGE_PATHS = ['/embed'] as const;

/**
 * The shell's policy. `frameAncestors` is 'none' for the dashboard; an embed's will come from its
 * embed key's origins, and until those exist it is 'none' too.
 */
export function shellPolicy(frameAncestors = "'none'"): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    `frame-ancestors ${frameAncestors}`,
  ].join('; ');
}

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export function shellHtml(bundle: WebBundle): string {
  const u = (name: string) => escapeAttr(bundle.urls[name]);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>footfall</title>
<link rel="icon" type="image/svg+xml" href="${u('icon.svg')}">
<link rel="stylesheet" href="${u('main.css')}">
<script type="module" src="${u('main.js')}"></script>
</head>
<body>
<div id="app"></div>
<noscript>The footfall dashboard needs JavaScript.</noscript>
</body>
</html>
`;
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>footfall</title></head>
<body><h1>The dashboard is not built</h1><p>Its files are made at install time. Run <code>npm run build:web</code>, then restart footfall.</p></body></html>
`;

function sendShell(reply: FastifyReply, bundle: WebBundle | null, frameAncestors?: string) {
  return reply
    .code(bundle ? 200 : 503)
    .type('text/html; charset=utf-8')
    .header('Cache-Control', 'no-cache')
    .header('Content-Security-Policy', shellPolicy(frameAncestors))
    .header('X-Frame-Options', 'DENY')
    .header('X-Content-Type-Options', 'nosniff')
    // the link pages carry secrets in their path: no Referer leaves with them
    .header('Referrer-Policy', 'no-referrer')
    .send(bundle ? shellHtml(bundle) : NOT_BUILT);
}

/** What `/` tells a program (a browser, asking for HTML, goes to the dashboard). */
export const ROOT_LINKS = { name: 'footfall', dashboard: '/app', docs: '/docs', openapi: '/openapi.json' } as const;

export function registerAppPages(app: FastifyInstance, bundle: () => WebBundle | null): void {
  for (const url of [...APP_PAGE_PATHS, ...EMBED_PAGE_PATHS]) {
    app.get(url, { schema: { hide: true } }, async (_request, reply) => sendShell(reply, bundle()));
  }
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    reply.header('Vary', 'Accept');
    if ((request.headers.accept ?? '').includes('text/html')) return reply.redirect('/app', 302);
    return ROOT_LINKS;
  });
}
