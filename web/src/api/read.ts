// Typed reads of the API's GET routes through a reader. Paths, parameters and answers are the typed
// client's (src/client/api-types.ts, generated from the served OpenAPI document): no second copy here.
import type { paths } from '../../../src/client/api-types.js';
import { csrfToken } from './csrf.js';
import { requestInit, type Reader } from './reader.js';

type Gettable = {
  [P in keyof paths]: paths[P] extends { get: { responses: { 200: { content: { 'application/json': unknown } } } } } ? P : never;
}[keyof paths];
export type ReadPath = Exclude<Gettable, '/healthz'>;
type GetOf<P extends ReadPath> = paths[P]['get'];
/** The route's query parameters; an empty object for a route that takes none (/v1/me). */
export type ReadQuery<P extends ReadPath> =
  GetOf<P> extends { parameters: { query?: infer Q } }
    ? [NonNullable<Q>] extends [never]
      ? Record<string, never>
      : NonNullable<Q>
    : never;
export type ReadBody<P extends ReadPath> = GetOf<P>['responses'][200]['content']['application/json'];

/** An answer other than 200, in the API's own words (its error envelope), or what went wrong on the way. */
export interface Failure {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
}
export type Result<T> = { ok: true; data: T } | { ok: false; error: Failure };

/** Where the browser could not reach the server at all. */
export const NETWORK_FAILURE_CODE = 'NETWORK';

export function queryString(query: object): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}

/** The failure a non-200 answer carries: its envelope when it has one. */
export async function failureOf(res: Response): Promise<Failure> {
  const text = await res.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: a proxy's page, say
  }
  return failureFromBody(res.status, body);
}

/** The failure of a status and its parsed body: the envelope's code and message, or words for a status without one. */
export function failureFromBody(status: number, body: unknown): Failure {
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null | undefined)?.error;
  if (error && typeof error.code === 'string' && typeof error.message === 'string') {
    const details = typeof error.details === 'object' && error.details !== null ? (error.details as Record<string, unknown>) : undefined;
    return { status, code: error.code, message: error.message, ...(details ? { details } : {}) };
  }
  return { status, code: `HTTP_${status}`, message: `The server answered ${status} without an explanation; try again in a moment.` };
}

export async function fetchOrFailure(url: string, init: RequestInit): Promise<Response | Failure> {
  try {
    return await fetch(url, init);
  } catch (err) {
    if ((err as { name?: string }).name === 'AbortError') throw err;
    return {
      status: 0,
      code: NETWORK_FAILURE_CODE,
      message: 'The server could not be reached. Check the connection, then reload the page.',
    };
  }
}

const PATIENCE = { tries: 3, maxWaitSeconds: 5 };

/**
 * A GET that waits out a 429 (its Retry-After, a few seconds at most) and asks again, twice at most:
 * the dashboard's reads share one window of requests per session, and a quick succession of views can
 * fill it for a moment. Anything else is answered as it came.
 */
export async function fetchPatiently(url: string, init: RequestInit): Promise<Response | Failure> {
  for (let attempt = 1; ; attempt++) {
    const res = await fetchOrFailure(url, init);
    if (!(res instanceof Response) || res.status !== 429 || attempt === PATIENCE.tries) return res;
    if (!(await waitOut(res.headers.get('retry-after')))) return res;
  }
}

/**
 * Waits out a 429's Retry-After (seconds; at least 1, also when it is missing) when it is a few
 * seconds at most: true once waited, false when it is too long to keep a panel waiting.
 */
export async function waitOut(retryAfter: string | null | undefined): Promise<boolean> {
  const wait = Number(retryAfter ?? 0);
  if (!Number.isFinite(wait) || wait > PATIENCE.maxWaitSeconds) return false;
  await new Promise((resolve) => setTimeout(resolve, Math.max(wait, 1) * 1000));
  return true;
}

/** GET a read route. Throws only when the signal aborts it (a newer state replaced the request). */
export async function read<P extends ReadPath>(
  reader: Reader,
  path: P,
  query: ReadQuery<P>,
  signal?: AbortSignal,
): Promise<Result<ReadBody<P>>> {
  const res = await fetchPatiently(reader.base + path + queryString(query), requestInit(reader, 'application/json', signal));
  if (!(res instanceof Response)) return { ok: false, error: res };
  if (res.status !== 200) {
    const error = await failureOf(res);
    if (res.status === 401) reader.onUnauthorized?.(error.message);
    return { ok: false, error };
  }
  return { ok: true, data: (await res.json()) as ReadBody<P> };
}

/** The query API's reads (POST, Plausible's body): the paths a reader's base prefixes, as the batch knows them. */
export type PostReadPath = '/api/v2/query' | '/api/v2/funnel';
export const POST_READ_PATHS: ReadonlySet<string> = new Set<PostReadPath>(['/api/v2/query', '/api/v2/funnel']);

/** The init of a POST read: its JSON body, the reader's credential, and the session's CSRF token where the reader needs it. */
export async function postInit(reader: Reader, accept: string, body: unknown): Promise<RequestInit> {
  const init = requestInit(reader, accept, undefined, reader.csrf ? await csrfToken() : null);
  return { ...init, method: 'POST', body: JSON.stringify(body), headers: { ...init.headers, 'Content-Type': 'application/json' } };
}

/** POST a query API read (its 429 waited out as a GET's). */
export async function postRead<T>(reader: Reader, path: PostReadPath, body: unknown): Promise<Result<T>> {
  const res = await fetchPatiently(reader.base + path, await postInit(reader, 'application/json', body));
  if (!(res instanceof Response)) return { ok: false, error: res };
  if (res.status !== 200) {
    const error = await failureOf(res);
    if (res.status === 401) reader.onUnauthorized?.(error.message);
    return { ok: false, error };
  }
  return { ok: true, data: (await res.json()) as T };
}
