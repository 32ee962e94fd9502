// What a request log line may say. Fastify logs the method, URL and host of each request (here without
// the client address it would add), never bodies or headers (so no password, cookie, CSRF token or embed token sent as it should
// be); the URL is masked here before the line is written, since it can carry a secret:
// - a link's, in its path: /app/invite/<secret>, /app/reset/<secret>, /app/sign-in/<secret>, and a share
//   link's /share/<slug> with everything under it. The router decodes percent-encoding (`/%73hare/<slug>`
//   is a share link's page), so each segment is matched as decoded; in any case too, and past empty and
//   dot segments, which do not route: a secret typed under such a path is a secret all the same.
// - one pasted where it does not belong, in the path, the query or a fragment: a value whose parameter is
//   named like a secret (token, key, password, ...), and any value shaped like one (an embed token's JWT,
//   an ff_ token or key secret, a long random run like a link secret or a session id), plain or encoded.
// Only the secret is replaced; the rest of the URL is logged as sent, and an ordinary one unchanged.
import type { FastifyServerOptions } from 'fastify';
import { decodeLeniently } from './decode-leniently.js';

const REDACTED = '[redacted]';
/** A segment naming a link whose secret is the next segment. */
const LINK_MARKERS = new Set(['share', 'invite', 'reset', 'sign-in']);
/** Segments that name no resource (the next one still follows the marker). */
const NOT_A_NAME = new Set(['', '.', '..']);
const SECRET_PARAMETER = /token|secret|passw|pwd|key|jwt|invit|reset|slug|sign.?in|session|csrf|auth|credential/i;
const JWT = /eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/;
const FF_SECRET = /ff_[a-z]+_[0-9A-Za-z_-]{8,}/;
/** Link secrets (32), share slugs (40), session ids (43): ids are shorter and prefixed (site_...). */
const RANDOM_RUN = /^[0-9A-Za-z]{32,}$/;

function shapedLikeSecret(decoded: string): boolean {
  return JWT.test(decoded) || FF_SECRET.test(decoded) || RANDOM_RUN.test(decoded);
}

function redactPath(path: string): string {
  let afterMarker = false;
  return path
    .split('/')
    .map((raw) => {
      const decoded = decodeLeniently(raw);
      if (afterMarker && !NOT_A_NAME.has(decoded)) {
        afterMarker = false;
        return REDACTED;
      }
      // %2F is not a separator to the router, but a segment may still hold `invite/<secret>`
      const parts = decoded.toLowerCase().split('/');
      if (parts.slice(0, -1).some((p) => LINK_MARKERS.has(p)) || decoded.split(/[/?&=;#]/).some(shapedLikeSecret)) return REDACTED;
      if (LINK_MARKERS.has(parts[parts.length - 1])) afterMarker = true;
      return raw;
    })
    .join('/');
}

/** The query and fragment: each `name=value` (or bare value) between ?, &, ; and #. */
function redactParameters(rest: string): string {
  return rest
    .split(/([?&;#])/)
    .map((piece, i) => {
      if (i % 2 === 1 || piece === '') return piece;
      const eq = piece.indexOf('=');
      if (eq === -1) return shapedLikeSecret(decodeLeniently(piece)) ? REDACTED : piece;
      const name = decodeLeniently(piece.slice(0, eq));
      if (shapedLikeSecret(name)) return REDACTED;
      const value = piece.slice(eq + 1);
      return SECRET_PARAMETER.test(name) || shapedLikeSecret(decodeLeniently(value)) ? `${piece.slice(0, eq)}=${REDACTED}` : piece;
    })
    .join('');
}

export function redactUrl(url: string): string {
  const end = url.search(/[?#]/);
  return end === -1 ? redactPath(url) : redactPath(url.slice(0, end)) + redactParameters(url.slice(end));
}

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  hostname?: string;
}

// No client address (nor its port): footfall keeps no address of anyone (the visitor key and the
// throttles use it and drop it), and its log would otherwise be a record of every visitor's.
export const requestSerializers = {
  req(req: LoggedRequest) {
    return { method: req.method, url: redactUrl(req.url), host: req.host ?? req.hostname };
  },
};

/** The logger options with these serializers (a caller's own serializers win). */
export function withRedaction(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (!logger) return logger;
  const base = typeof logger === 'object' ? logger : {};
  return { ...base, serializers: { ...requestSerializers, ...(base.serializers ?? {}) } };
}
