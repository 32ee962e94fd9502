// The management API under /app/api (people, workspaces, sites, settings): JSON in and out with the
// session cookie, the CSRF token on every change. Its paths, parameters, bodies and answers are
// manage-types.ts, generated from its OpenAPI document (/app/api/openapi.json): no second copy here, and
// a call whose path, method, path parameters or body the document does not have does not compile. The
// dashboard's reads of numbers go through read.ts instead.
import { knownCsrf, rememberCsrf } from './csrf.js';
import type { paths, SessionState } from './manage-types.js';
import { failureOf, fetchOrFailure, fetchPatiently, type Result } from './read.js';

export const APP_API = '/app/api';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
/** The operation of a path below /app/api (as the document writes it: `/sites/{site_id}`) and a method. */
type Operation<M extends Method, P extends string> = paths[Extract<keyof paths, `${typeof APP_API}${P}`>][Lowercase<M>];
type Success<O> = O extends { responses: infer R } ? R[Extract<keyof R, 200 | 201 | 204>] : never;
/** Whether the operation exists and answers JSON, or nothing (204): not the NDJSON of GET /reads. */
type Answered<O> = [Success<O>] extends [never]
  ? false
  : Success<O> extends { content: { 'application/json': unknown } } | { content?: never }
    ? true
    : false;
type PathParams<O> = O extends { parameters: { path: infer X } } ? X : never;
type BodyOf<O> = O extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;
type Sent<O> = ([PathParams<O>] extends [never] ? unknown : { path: PathParams<O> }) &
  ([BodyOf<O>] extends [never] ? unknown : { body: BodyOf<O> });

/** The paths below /app/api that `method` may call. */
export type ManagePath<M extends Method> = {
  [K in keyof paths]: Answered<paths[K][Lowercase<M>]> extends true ? (K extends `${typeof APP_API}${infer P}` ? P : never) : never;
}[keyof paths];
/** What a call sends beside its method and path: `{ path: {...} }` for a path's parameters, `{ body }` for a body; nothing when neither. */
export type ManageArgs<M extends Method, P extends ManagePath<M>> =
  unknown extends Sent<Operation<M, P>> ? [] : [sent: Sent<Operation<M, P>>];
export type ManageBody<M extends Method, P extends ManagePath<M>> = BodyOf<Operation<M, P>>;
/** The answer of a success: its JSON, or null (204). */
export type ManageAnswer<M extends Method, P extends ManagePath<M>> =
  Success<Operation<M, P>> extends { content: { 'application/json': infer B } } ? B : null;

/** The URL of a path below /app/api, each {parameter} filled in as a path segment. */
export function manageUrl(path: string, params: Record<string, string> = {}): string {
  return APP_API + path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}

/**
 * GET or change something under /app/api: `manage('PATCH', '/tenants/{tenant_id}', { path: { tenant_id }, body: { status } })`.
 * A change carries the CSRF token of the session read last.
 */
export async function manage<M extends Method, P extends ManagePath<M>>(
  method: M,
  path: P,
  ...args: ManageArgs<M, P>
): Promise<Result<ManageAnswer<M, P>>> {
  const sent = (args as { path?: Record<string, string>; body?: unknown }[])[0] ?? {};
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (sent.body !== undefined) headers['Content-Type'] = 'application/json';
  const csrf = knownCsrf();
  if (method !== 'GET' && csrf) headers['X-CSRF-Token'] = csrf;
  // a read waits out a full rate window; a change is answered as it came (nothing was changed)
  const res = await (method === 'GET' ? fetchPatiently : fetchOrFailure)(manageUrl(path, sent.path), {
    method,
    headers,
    credentials: 'same-origin',
    ...(sent.body !== undefined ? { body: JSON.stringify(sent.body) } : {}),
  });
  if (!(res instanceof Response)) return { ok: false, error: res };
  if (res.status < 200 || res.status > 299) return { ok: false, error: await failureOf(res) };
  const data = (res.status === 204 ? null : await res.json()) as ManageAnswer<M, P>;
  const token = (data as { csrf_token?: unknown } | null)?.csrf_token;
  if (typeof token === 'string') rememberCsrf(token);
  return { ok: true, data };
}

/** A path segment of an id as the URL carries it. */
export const seg = encodeURIComponent;

export function readSession(): Promise<Result<SessionState>> {
  return manage('GET', '/session');
}

export async function signOut(): Promise<void> {
  await manage('DELETE', '/session');
  location.assign('/app');
}

/** Where a page that needs a session sends a person without one: the sign-in, then back here. */
export function toSignIn(): void {
  location.assign(`/app?next=${encodeURIComponent(location.pathname + location.search)}`);
}
