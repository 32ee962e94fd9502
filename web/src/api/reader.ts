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
}

/** The dashboard: /app/api/v1/..., the session cookie (same origin, sent by the browser). */
export function sessionReader(): Reader {
  return { base: '/app/api', auth: { kind: 'session' }, batch: '/app/api/reads' };
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

export function requestInit(reader: Reader, accept: string, signal?: AbortSignal): RequestInit {
  const headers: Record<string, string> = { Accept: accept };
  if (reader.auth.kind === 'bearer') headers.Authorization = `Bearer ${reader.auth.token}`;
  // The cookie goes only to this origin; a bearer reader sends none (an embed is not a signed-in page).
  return { headers, credentials: reader.auth.kind === 'session' ? 'same-origin' : 'omit', signal };
}
