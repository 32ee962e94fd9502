// The pages of the browser half: /app and each of its page paths (and, from embed/embed-page.ts and share/share-page.ts, /embed and
// /share/<slug>) answer one HTML shell that loads the bundle (web-assets.ts); the page draws itself from
// its path. The shell is never cached (a release changes the names it loads) and runs under a strict
// Content-Security-Policy: this origin only, no inline script or style, no framing (an embed's own
// frame-ancestors aside). `/` sends a browser to /app and tells anything else where things are.
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
  '/app/account',
] as const;

/** The shell's policy. `frameAncestors` is 'none' but for an embed, whose embed key's origins may frame it. */
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

/** `meta`: facts the server knows of the page before it runs (an embed key's origins), as <meta name content>. */
export function shellHtml(bundle: WebBundle, meta: Record<string, string> = {}): string {
  const u = (name: string) => escapeAttr(bundle.urls[name]);
  const extra = Object.entries(meta)
    .map(([name, content]) => `<meta name="${escapeAttr(name)}" content="${escapeAttr(content)}">\n`)
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
${extra}<title>footfall</title>
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

export interface ShellOptions {
  /** CSP frame-ancestors sources; default 'none' */
  frameAncestors?: string;
  /** the status when the bundle is built (a share link that is gone: 404) */
  status?: number;
  meta?: Record<string, string>;
}

export function sendShell(reply: FastifyReply, bundle: WebBundle | null, options: ShellOptions = {}) {
  const frameAncestors = options.frameAncestors ?? "'none'";
  reply
    .code(bundle ? (options.status ?? 200) : 503)
    .type('text/html; charset=utf-8')
    .header('Cache-Control', 'no-cache')
    .header('Content-Security-Policy', shellPolicy(frameAncestors))
    .header('X-Content-Type-Options', 'nosniff')
    // the link pages carry secrets in their path: no Referer leaves with them
    .header('Referrer-Policy', 'no-referrer');
  // For browsers that know no frame-ancestors; an embed that may be framed says so in its CSP alone.
  if (frameAncestors === "'none'") reply.header('X-Frame-Options', 'DENY');
  return reply.send(bundle ? shellHtml(bundle, options.meta) : NOT_BUILT);
}

/** What `/` tells a program (a browser, asking for HTML, goes to the dashboard). */
export const ROOT_LINKS = { name: 'footfall', dashboard: '/app', docs: '/docs', openapi: '/openapi.json' } as const;

export function registerAppPages(app: FastifyInstance, bundle: () => WebBundle | null): void {
  for (const url of APP_PAGE_PATHS) {
    app.get(url, { schema: { hide: true } }, async (_request, reply) => sendShell(reply, bundle()));
  }
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    reply.header('Vary', 'Accept');
    if ((request.headers.accept ?? '').includes('text/html')) return reply.redirect('/app', 302);
    return ROOT_LINKS;
  });
}
