// The management API under /app/api (people, workspaces, sites, settings): JSON in and out with the
// session cookie, the CSRF token on every change. Its shapes are manage-types.ts, generated from its
// OpenAPI document (/app/api/openapi.json): no second copy here. The dashboard's reads of numbers go
// through read.ts instead.
import type { SessionState } from './manage-types.js';
import { failureOf, fetchOrFailure, fetchPatiently, type Result } from './read.js';

export const APP_API = '/app/api';

let csrfToken: string | null = null;

/** GET or change something under /app/api. A change carries the CSRF token of the session read last. */
export async function manage<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<Result<T>> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  // a read waits out a full rate window; a change is answered as it came (nothing was changed)
  const res = await (method === 'GET' ? fetchPatiently : fetchOrFailure)(APP_API + path, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  if (!(res instanceof Response)) return { ok: false, error: res };
  if (res.status < 200 || res.status > 299) return { ok: false, error: await failureOf(res) };
  const data = (res.status === 204 ? null : await res.json()) as T;
  const token = (data as { csrf_token?: unknown } | null)?.csrf_token;
  if (typeof token === 'string') csrfToken = token;
  return { ok: true, data };
}

/** A path segment of an id as the URL carries it. */
export const seg = encodeURIComponent;

export function readSession(): Promise<Result<SessionState>> {
  return manage<SessionState>('GET', '/session');
}

export async function signOut(): Promise<void> {
  await manage('DELETE', '/session');
  location.assign('/app');
}

/** Where a page that needs a session sends a person without one: the sign-in, then back here. */
export function toSignIn(): void {
  location.assign(`/app?next=${encodeURIComponent(location.pathname + location.search)}`);
}
