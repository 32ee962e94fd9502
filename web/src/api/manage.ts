// The management API under /app/api (people, workspaces, sites, settings): JSON in and out with the
// session cookie, the CSRF token on every change. Its shapes are written here from the design of that
// API until its own typed client is generated from /app/api/openapi.json.
import { failureOf, fetchOrFailure, type Result } from './read.js';

export const APP_API = '/app/api';

export type Role = 'owner' | 'admin' | 'viewer';
export interface User {
  user_id: string;
  email: string;
  name: string | null;
}
export interface WorkspaceSummary {
  workspace_id: string;
  name: string;
  plan: string;
  role: Role;
}
export interface SessionState {
  user: User;
  csrf_token: string;
  workspaces: WorkspaceSummary[];
}
export interface SiteRecord {
  site_id: string;
  workspace_id: string;
  name: string;
  hostnames: string[];
  status: 'ACTIVE' | 'SUSPENDED';
  collection_profile: 'strict' | 'extended';
}

let csrfToken: string | null = null;

/** GET or change something under /app/api. A change carries the CSRF token of the session read last. */
export async function manage<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<Result<T>> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  const res = await fetchOrFailure(APP_API + path, {
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

export function readSession(): Promise<Result<SessionState>> {
  return manage<SessionState>('GET', '/session');
}

export async function signOut(): Promise<void> {
  await manage('DELETE', '/session');
  location.assign('/app');
}
