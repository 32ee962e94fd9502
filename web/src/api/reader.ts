// A reader: where the read routes live and how to prove who is asking. The dashboard reads the /v1
// routes' twins under /app/api with its session cookie; the embed and share pages read /v1 itself with
// a bearer. The panels take a reader and never know which.
export type ReaderAuth = { kind: 'session' } | { kind: 'bearer'; token: string };

export interface Reader {
  /** prefix of the API's own paths: '' (this origin's /v1), '/app/api' (the dashboard's twins) or a share link's */
  readonly base: string;
  readonly auth: ReaderAuth;
  /** where reads asked together go as one request (GET /app/api/reads, /embed/api/reads, /share/<slug>/api/reads) */
  readonly batch?: string;
  /** hears of every 401 a read gets (the embed page: its token expired, ask the host page for another) */
  readonly onUnauthorized?: (message: string) => void;
  /** its POST reads (the query API's) carry the session's CSRF token, as every POST under /app/api does */
  readonly csrf?: boolean;
}

/** The dashboard: /app/api/v1/..., the session cookie (same origin, sent by the browser). */
export function sessionReader(): Reader {
  return { base: '/app/api', auth: { kind: 'session' }, batch: '/app/api/reads', csrf: true };
}

/** Embeds: /v1/... with Authorization: Bearer; their batch outside /v1, with the same bearer. */
export function bearerReader(token: string, onUnauthorized?: (message: string) => void): Reader {
  return { base: '', auth: { kind: 'bearer', token }, batch: '/embed/api/reads', onUnauthorized };
}

/** A share link: its own twins of the read routes (/share/<slug>/api/v1/...) and their batch, with its password cookie if any. */
export function shareReader(slug: string): Reader {
  const base = `/share/${encodeURIComponent(slug)}/api`;
  return { base, auth: { kind: 'session' }, batch: `${base}/reads` };
}

/** `csrf`: the session's token, for a POST read (or a batch holding one) of a reader that needs it. */
export function requestInit(reader: Reader, accept: string, signal?: AbortSignal, csrf?: string | null): RequestInit {
  const headers: Record<string, string> = { Accept: accept };
  if (reader.auth.kind === 'bearer') headers.Authorization = `Bearer ${reader.auth.token}`;
  if (reader.csrf && csrf) headers['X-CSRF-Token'] = csrf;
  // The cookie goes only to this origin; a bearer reader sends none (an embed is not a signed-in page).
  return { headers, credentials: reader.auth.kind === 'session' ? 'same-origin' : 'omit', signal };
}
