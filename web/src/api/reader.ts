// A reader: where the read routes live and how to prove who is asking. The dashboard reads the /v1
// routes' twins under /app/api with its session cookie; the embed and share pages read /v1 itself with
// a bearer. The panels take a reader and never know which.
export type ReaderAuth = { kind: 'session' } | { kind: 'bearer'; token: string };

export interface Reader {
  /** prefix of the API's own paths: '' (this origin's /v1) or '/app/api' (the dashboard's twins) */
  readonly base: string;
  readonly auth: ReaderAuth;
}

/** The dashboard: /app/api/v1/..., the session cookie (same origin, sent by the browser). */
export function sessionReader(): Reader {
  return { base: '/app/api', auth: { kind: 'session' } };
}

/** Embeds, share links and API tokens: /v1/... with Authorization: Bearer. */
export function bearerReader(token: string): Reader {
  return { base: '', auth: { kind: 'bearer', token } };
}

export function requestInit(reader: Reader, accept: string, signal?: AbortSignal): RequestInit {
  const headers: Record<string, string> = { Accept: accept };
  if (reader.auth.kind === 'bearer') headers.Authorization = `Bearer ${reader.auth.token}`;
  // The cookie goes only to this origin; a bearer reader sends none (an embed is not a signed-in page).
  return { headers, credentials: reader.auth.kind === 'session' ? 'same-origin' : 'omit', signal };
}
