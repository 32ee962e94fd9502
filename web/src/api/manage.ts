// The management API under /app/api (people, workspaces, sites, settings): JSON in and out with the
// session cookie, the CSRF token on every change. Its shapes are written here from its OpenAPI document
// (/app/api/openapi.json); the dashboard's reads of numbers go through read.ts instead.
import { failureOf, fetchOrFailure, fetchPatiently, type Result } from './read.js';

export const APP_API = '/app/api';

export type Role = 'owner' | 'admin' | 'viewer';
export type Plan = 'free' | 'starter' | 'pro' | 'enterprise';
export interface User {
  user_id: string;
  email: string;
  name: string | null;
}
export interface WorkspaceSummary {
  workspace_id: string;
  name: string;
  plan: Plan;
  role: Role;
}
export interface SessionState {
  user: User;
  csrf_token: string;
  workspaces: WorkspaceSummary[];
}
export interface DnsRecord {
  name: string;
  type: 'TXT';
  value: string;
}
export interface DomainProof {
  domain: string;
  verified: boolean;
  verified_at: string | null;
  claimed_by_another_workspace: boolean;
  verification: DnsRecord;
}
export type Profile = 'strict' | 'extended';
export interface SiteRecord {
  site_id: string;
  workspace_id: string;
  name: string;
  hostnames: string[];
  status: 'ACTIVE' | 'SUSPENDED';
  collection_profile: Profile;
  collection_profile_effective_at: string | null;
  created_at: string;
  domain_scope: string | null;
  hostname_patterns: string[];
  domains: DomainProof[];
  released_hostnames: { hostname: string; released_at: string }[];
}
/** The plan's dashboard rules: what the reads under /app/api/v1 may ask (the server applies the same). */
export interface DashboardRules {
  surfaces: string[];
  hourly: boolean;
  csv: boolean;
  retention_days: number | null;
  max_range_days: number | null;
  row_limit: number;
}
export interface SiteDashboard {
  site: SiteRecord;
  workspace: WorkspaceSummary;
  dashboard: DashboardRules;
  tracker_script_url: string;
}
export interface WorkspaceDetails {
  workspace: WorkspaceSummary;
  dashboard: DashboardRules;
  plan: { api_tokens: boolean; max_users: number | null; max_sites: number | null };
}
export interface LiveVisitors {
  visitors: number;
  last_event_at: string | null;
}

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
