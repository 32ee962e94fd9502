// One pipeline for every management route (/app/api), in this order:
// route (404/405, app-api-errors.ts) -> Origin (403) -> session (401) -> CSRF token (403)
// -> rate limit per session (429) -> a path parameter no store can hold (422) -> workspace, site, tenant,
// goal or token and the role (404, 403) -> query and body (422, naming the field) -> the use-case (404,
// 409, 422) -> the answer.
// The role is checked before the body, as the read API checks scope before parameters.
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type {} from '@fastify/cookie';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { Role } from '../../domain/roles.js';
import { ManageError } from '../../domain/manage-errors.js';
import type { Funnel, Goal, Site, Tenant, Token } from '../../ports/catalog-store.js';
import {
  funnelAccess,
  goalAccess,
  siteAccess,
  tenantAccess,
  tokenAccess,
  workspaceAccess,
  type Actor,
  type WorkspaceAccess,
} from '../../services/manage/access.js';
import type { ActiveSession } from '../../services/people/sessions.js';
import { csrfTokenMatches, resolveSession } from '../../services/people/sessions.js';
import { checkSessionRate } from '../../services/people/session-rate.js';
import type { AppApiDeps } from './app-api-deps.js';
import { arrayParameters, checkInput, checkPathParameters, repeatedAsArrays } from '../pipeline/check-input.js';
import { clearSessionCookie, sendSessionCookie, SESSION_COOKIE } from './session-cookie.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

interface AccessOf {
  workspace: WorkspaceAccess;
  site: WorkspaceAccess & { site: Site };
  tenant: WorkspaceAccess & { site: Site; tenant: Tenant };
  goal: WorkspaceAccess & { goal: Goal };
  funnel: WorkspaceAccess & { funnel: Funnel };
  token: WorkspaceAccess & { token: Token };
}
export type GuardOn = keyof AccessOf;

/** The path parameter each guard reads (token: workspace_id and token_id). */
const GUARD_PARAM: Record<GuardOn, string> = {
  workspace: 'workspace_id',
  site: 'site_id',
  tenant: 'tenant_id',
  goal: 'goal_id',
  funnel: 'funnel_id',
  token: 'token_id',
};

export interface AppRouteContext<P, Q, B, K extends GuardOn> {
  deps: AppApiDeps;
  request: FastifyRequest;
  reply: FastifyReply;
  params: P;
  query: Q;
  body: B;
  /** the signed-in person ('session' routes) */
  session: ActiveSession;
  actor: Actor;
  access: AccessOf[K];
}

export interface AppRouteDefinition<
  P extends TObject = TObject,
  Q extends TObject = TObject,
  B extends TObject = TObject,
  R extends TSchema = TSchema,
  K extends GuardOn = GuardOn,
> {
  method: Method;
  /** below /app/api, with :name parameters */
  url: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** 'public': no session (signing in, accepting a link); no CSRF token, the Origin check still applies */
  auth: 'public' | 'session';
  /** the resource the path names and the role it needs (checked before the body) */
  guard?: { on: K; need: Role };
  params?: P;
  query?: Q;
  body?: B;
  status: 200 | 201 | 202 | 204;
  /** the response's media type when it is not one JSON document (the handler then answers a stream); `response` describes one of its lines */
  produces?: string;
  response?: R;
  /** error statuses this route answers beyond those of every route of its kind */
  errors?: readonly number[];
  /** the answer: a JSON value, or the stream of a route that `produces` another media type */
  handler(ctx: AppRouteContext<Static<P>, Static<Q>, Static<B>, K>): Promise<Static<R> | undefined | Readable>;
}

/**
 * A route as the API and its document see it: the definition without its typed handler, which the
 * route's own `register` closes over (so the list of routes needs no cast to hold routes of many types).
 */
export interface AppRoute extends Omit<AppRouteDefinition, 'handler'> {
  register(scope: FastifyInstance, deps: AppApiDeps): void;
}

export function defineAppRoute<P extends TObject, Q extends TObject, B extends TObject, R extends TSchema, K extends GuardOn = never>(
  def: AppRouteDefinition<P, Q, B, R, K>,
): AppRoute {
  return { ...def, register: (scope, deps) => registerAppRoute(scope, deps, def) };
}

/** OpenAPI security of a route: a session, and the CSRF token for anything but a read; none when public. */
export function securityOf(def: Pick<AppRouteDefinition, 'auth' | 'method'>): Record<string, string[]>[] {
  if (def.auth === 'public') return [];
  return def.method === 'GET' ? [{ sessionCookie: [] }] : [{ sessionCookie: [], csrfToken: [] }];
}

/** What the management pipeline's onRequest stage found, for its handler stage. */
export interface ManageRouteState {
  session: ActiveSession | null;
  actor: Actor | null;
  access: unknown;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** set by the management pipeline's first stage (define-app-route.ts); null on any other route */
    manageRoute: ManageRouteState | null;
  }
}

const UNSAFE = new Set(['POST', 'PATCH', 'DELETE', 'PUT']);

function registerAppRoute<P extends TObject, Q extends TObject, B extends TObject, R extends TSchema, K extends GuardOn>(
  scope: FastifyInstance,
  deps: AppApiDeps,
  def: AppRouteDefinition<P, Q, B, R, K>,
): void {
  const origin = new URL(deps.config.publicUrl).origin;
  const repeated = arrayParameters(def.query);
  // Fastify's way to carry request state: declared once, so every request has the same shape
  if (!scope.hasRequestDecorator('manageRoute')) scope.decorateRequest('manageRoute', null);
  scope.route({
    method: def.method,
    url: def.url,
    // Described by the management API's own document, not the read API's; the security it declares
    // there is on the registered route too, for whatever reads the routes as Fastify adds them.
    schema: { hide: true, security: securityOf(def) },
    onRequest: async (request: FastifyRequest, reply: FastifyReply) => {
      const unsafe = UNSAFE.has(request.method);
      const sentOrigin = request.headers.origin;
      if (unsafe && sentOrigin !== undefined && sentOrigin !== origin)
        throw new ManageError('FORBIDDEN', `Requests that change anything are accepted from ${origin} only.`);
      let session: ActiveSession | null = null;
      if (def.auth === 'session') {
        session = await resolveSession(deps, request.cookies[SESSION_COOKIE]);
        if (!session) {
          if (request.cookies[SESSION_COOKIE] !== undefined) clearSessionCookie(deps.publicUrl, request, reply);
          throw new ManageError('UNAUTHORIZED');
        }
        if (unsafe && !(await csrfTokenMatches(deps, session.idHash, header(request, 'x-csrf-token'))))
          throw new ManageError(
            'FORBIDDEN',
            'Send the X-CSRF-Token header with the csrf_token of your session (GET /app/api/session gives it).',
          );
        await checkSessionRate(deps.limiter, session.idHash, deps.clock.now().getTime());
        if (session.renewed)
          sendSessionCookie(deps.publicUrl, request, reply, { secret: request.cookies[SESSION_COOKIE]!, expiresAt: session.expiresAt });
      }
      const actor: Actor | null = session ? { kind: 'person', user: session.user } : null;
      checkPathParameters(request.params as Record<string, string>);
      let access: unknown = null;
      if (def.guard && actor) access = await resolveGuard(deps, actor, def.guard, request.params as Record<string, string>);
      request.manageRoute = { session, actor, access };
    },
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const state = request.manageRoute!;
      const query = def.query ? checkInput(def.query, repeatedAsArrays(request.query, repeated), 'query parameter') : {};
      const body = def.body ? checkInput(def.body, request.body ?? {}, 'field') : {};
      const result = await def.handler({
        deps,
        request,
        reply,
        params: request.params as never,
        query: query as never,
        body: body as never,
        session: state.session!,
        actor: state.actor!,
        access: state.access as never,
      });
      reply.code(def.status);
      if (def.status === 204) return reply.send();
      if (def.produces) return reply.type(def.produces).send(result);
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(result ?? {}));
    },
  });
}

function header(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return Array.isArray(v) ? undefined : v;
}

async function resolveGuard(
  deps: AppApiDeps,
  actor: Actor,
  guard: { on: GuardOn; need: Role },
  params: Record<string, string>,
): Promise<unknown> {
  const id = params[GUARD_PARAM[guard.on]];
  switch (guard.on) {
    case 'workspace':
      return workspaceAccess(deps, actor, id, guard.need);
    case 'site':
      return siteAccess(deps, actor, id, guard.need);
    case 'tenant':
      return tenantAccess(deps, actor, id, guard.need);
    case 'goal':
      return goalAccess(deps, actor, id, guard.need);
    case 'funnel':
      return funnelAccess(deps, actor, id, guard.need);
    case 'token':
      return tokenAccess(deps, actor, id, guard.need, params.workspace_id);
  }
}
