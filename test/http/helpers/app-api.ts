// People and requests of the management API (/app/api) for the HTTP tests: a person with a role in a
// workspace, signed in through the real endpoint, and requests that carry their cookie and CSRF token.
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { openApiValidator, resolvePointer } from './openapi-check.js';
import type { Role } from '../../../src/domain/roles.js';
import type { User } from '../../../src/ports/people-store.js';
import { TEST_HASHER, type Harness } from './harness.js';
import { metricsHarness, type MetricsHarness } from '../metrics-harness.js';
import { linesFor } from '../../unit/reports/reference.js';

export const ORIGIN = 'http://127.0.0.1:8080';
export const PASSWORD = 'correct horse battery';

export interface Person {
  user: User;
  email: string;
  password: string;
  cookie: string;
  csrf: string;
}

/** The session cookie a response sets ('' when it clears it), or undefined when it sets none. */
export function sessionCookieOf(res: LightMyRequestResponse): string | undefined {
  const c = res.cookies.find((x) => x.name === 'footfall_session');
  return c === undefined ? undefined : c.value;
}

export async function signIn(h: Harness, email: string, password = PASSWORD, address = '203.0.113.9'): Promise<LightMyRequestResponse> {
  return h.app.inject({ method: 'POST', url: '/app/api/session', payload: { email, password }, remoteAddress: address });
}

let n = 0;
/** A new account (with a password), a member of `workspaceId` with `role` when given, signed in. */
export async function person(
  h: Harness,
  opts: { workspaceId?: string; role?: Role; email?: string; password?: string } = {},
): Promise<Person> {
  const email = opts.email ?? `p${++n}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const password = opts.password ?? PASSWORD;
  const user = await h.people.createUser({ email, name: 'Test Person', passwordHash: await TEST_HASHER.hash(password) });
  if (opts.workspaceId && opts.role) await h.people.addMember({ workspaceId: opts.workspaceId, userId: user.id, role: opts.role });
  const res = await signIn(h, email, password);
  if (res.statusCode !== 200) throw new Error(`sign-in failed: ${res.statusCode} ${res.body}`);
  return { user, email, password, cookie: sessionCookieOf(res)!, csrf: res.json().csrf_token };
}

export interface CallOptions {
  body?: unknown;
  /** false: no CSRF header; a string: that value */
  csrf?: false | string;
  origin?: string;
  headers?: Record<string, string>;
}

/** A request as `who` (null: no session). */
export function call(h: Harness, who: Person | null, method: string, url: string, opts: CallOptions = {}): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (who) headers.cookie = `footfall_session=${who.cookie}`;
  const csrf = opts.csrf === undefined ? who?.csrf : opts.csrf;
  if (csrf && method !== 'GET') headers['x-csrf-token'] = csrf;
  if (opts.origin) headers.origin = opts.origin;
  return h.app.inject({ method: method as 'GET', url, headers, ...(opts.body !== undefined ? { payload: opts.body as object } : {}) });
}

type Json = Record<string, any>;
const checkers = new WeakMap<Harness, Promise<(method: string, url: string, r: LightMyRequestResponse) => void>>();

/** Checks a management answer against /app/api/openapi.json: status documented, body of its schema, required headers. */
function checkerOf(h: Harness) {
  let c = checkers.get(h);
  if (!c) {
    c = (async () => {
      const doc = (await h.app.inject({ url: '/app/api/openapi.json' })).json() as Json;
      const validator = openApiValidator(doc);
      const templates = Object.keys(doc.paths).map((p) => ({ p, re: new RegExp('^' + p.replace(/\{[a-z_]+\}/g, '[^/]+') + '$') }));
      return (method: string, url: string, r: LightMyRequestResponse) => {
        const path = url.split('?')[0];
        assert.ok(r.headers['x-request-id'], `${method} ${url}: X-Request-Id`);
        const template = templates.find((t) => t.re.test(path) && doc.paths[t.p][method.toLowerCase()])?.p;
        let pointer: string;
        if (template) {
          const declared = doc.paths[template][method.toLowerCase()].responses[String(r.statusCode)];
          assert.ok(declared, `${method} ${template}: status ${r.statusCode} is not documented (${r.body.slice(0, 300)})`);
          pointer = declared.$ref
            ? declared.$ref.slice(1)
            : `/paths/${template.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${r.statusCode}`;
        } else {
          assert.ok([404, 405].includes(r.statusCode), `${method} ${path}: undocumented operation answered ${r.statusCode}`);
          pointer = `/components/responses/${r.statusCode === 404 ? 'NotFound' : 'MethodNotAllowed'}`;
        }
        const response = resolvePointer(doc, `#${pointer}`);
        for (const [name, hd] of Object.entries<Json>(response.headers ?? {}))
          if (hd.required) assert.ok(r.headers[name.toLowerCase()] !== undefined, `${method} ${url} ${r.statusCode}: header ${name}`);
        if (!response.content) {
          assert.equal(r.body, '', `${method} ${url} ${r.statusCode}: no body documented`);
          return;
        }
        const media = Object.keys(response.content)[0];
        const validate = validator(`#${pointer}/content/${media.replace(/\//g, '~1')}/schema`);
        // NDJSON: the schema is a line's
        const values =
          media === 'application/x-ndjson'
            ? r.body
                .split('\n')
                .filter(Boolean)
                .map((line) => JSON.parse(line))
            : [r.json()];
        for (const value of values)
          assert.ok(
            validate(value),
            `${method} ${url} ${r.statusCode} does not match the document: ${JSON.stringify(validate.errors)}\n${r.body.slice(0, 500)}`,
          );
        if (r.statusCode >= 400) assert.equal(r.json().error.request_id, r.headers['x-request-id']);
      };
    })();
    checkers.set(h, c);
  }
  return c;
}

/** `call`, then the answer checked against the management API's document. */
export async function checked(
  h: Harness,
  who: Person | null,
  method: string,
  url: string,
  opts: CallOptions = {},
): Promise<LightMyRequestResponse> {
  const r = await call(h, who, method, url, opts);
  (await checkerOf(h))(method, url, r);
  return r;
}

/** A metrics harness with one site holding the reference events (test/unit/reports/reference.ts) and a viewer of its workspace, signed in. */
export async function viewerOfReferenceSite(): Promise<{ h: MetricsHarness; site: string; viewer: Person }> {
  const h = await metricsHarness();
  const site = await h.site();
  await h.importEvents(linesFor(site));
  return { h, site, viewer: await person(h, { workspaceId: h.ws.id, role: 'viewer' }) };
}
