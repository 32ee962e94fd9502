// One pipeline for every authenticated read route (GET, and the query API's POST), in the order docs/product.md §7.2 fixes:
// route (404/405, in error-envelope.ts) -> caller (401, the route's authentication strategy)
// -> rate limit (429) -> plan, scope, family or dashboard surface, CSV (403)
// -> parameters (422: unknown or repeated, then the schema, then the route's own checks)
// -> site and tenant access (403) -> site status (409) -> the handler (metering, query, budget).
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { RouteFamily, TokenScope } from '../../domain/access.js';
import { invalidParams } from '../../domain/errors.js';
import { unstorableReason } from '../../domain/storable-text.js';
import type { DashboardSurface } from '../../domain/plans.js';
import type { EmbedRoute } from '../../domain/embeds.js';
import type { Site, Tenant } from '../../ports/catalog-store.js';
import { authorizeRoute, resolveSiteAccess } from '../../services/authorize.js';
import type { Caller, Seal } from '../../services/caller.js';
import type { AppDeps } from '../../services/deps.js';
import { requestMeter, type MeteredMeta } from '../../services/metering.js';
import { applyRateLimit } from '../../services/rate-limit.js';
import { tokenOrEmbedStrategy, tokenStrategy, type AuthStrategy } from './auth-strategy.js';
import { negotiateFormat, type Format } from './negotiate.js';
import { errorResponses } from '../schemas/common.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** the name of the authentication strategy a route was registered with */
    strategy?: string;
  }
}

/** A body the handler serialized itself (large reports: JSON.stringify beats the schema serializer there). */
export class RawJson {
  constructor(readonly body: string | Buffer) {}
}

/** A CSV body (RFC 4180, UTF-8), sent as an attachment named `filename`. */
export class RawCsv {
  constructor(
    readonly body: string | Buffer,
    readonly filename: string,
  ) {}
}

export interface RouteContext<Q> {
  /** the route's declared url (not the request's): e.g. the response cache's namespace */
  routeUrl: string;
  deps: AppDeps;
  caller: Caller;
  query: Q;
  /** what the request asked for: the JSON envelope, or CSV on a route that offers it */
  format: Format;
  requestId: string;
  /** clock time when the request arrived: the month it is metered in, "today" for defaults */
  arrivedAt: Date;
  /** set when the route declares `site` */
  site: Site | null;
  tenant: Tenant | null;
  log: FastifyBaseLogger;
  /** reserve -> run -> commit, or release on any failure (402 when the cap would be passed) */
  meter<T>(units: number, run: () => Promise<T>): Promise<{ value: T; meta: MeteredMeta }>;
  /** reserve and commit at once, for work already done that cannot fail (402 when over the cap) */
  charge(units: number): Promise<MeteredMeta>;
}

export interface SiteRule<Q> {
  /** 'reject' answers 409 SITE_INACTIVE for SUSPENDED sites */
  inactive: 'reject' | 'allow';
  /** site_id may also be one of the site's hostnames (the query API, as Plausible's site_id is its domain) */
  hostnames?: boolean;
  /** analytics routes: a tenant-restricted token must pass one of its tenant_ids */
  tenantRequiredForRestrictedToken?: boolean | ((query: Q) => boolean);
}

export interface RouteDefinition<Q extends TObject = TObject, R extends TSchema = TSchema> {
  url: string;
  /**
   * GET (default): the parameters are the query string, checked by `querystring`. POST: they are the JSON
   * body, which `body` documents and the route's `check` parses itself (its refusals name a field by its
   * JSON path); the handler's `query` is the body. A POST route's caller is admitted once the body is read.
   */
  method?: 'GET' | 'POST';
  body?: TSchema;
  /** unique, stable: the method name a generated client gives the operation */
  operationId: string;
  family: RouteFamily;
  /** any one of them grants the route */
  scopes: readonly TokenScope[];
  /** the dashboard surface it draws (dashboard-policy.ts); null: a read every dashboard may make */
  surface: DashboardSurface | null;
  /** the name an embed token's `routes` claim gives it; absent: embed tokens and share links do not read it */
  embed?: EmbedRoute;
  summary: string;
  description?: string;
  tags: string[];
  querystring?: Q;
  response: R;
  /** set when the route also answers Accept: text/csv (RawCsv): the CSV's description in the OpenAPI document */
  csv?: { description: string };
  /** statuses beyond those every authenticated route can answer (401, 403, 422, 429, 500, 503) */
  errors?: readonly number[];
  /** reads query.site_id (and query.tenant_id) and checks access to them */
  site?: SiteRule<Static<Q>>;
  /** parameter rules a schema cannot say (calendar dates, from <= to); throw INVALID_PARAMS */
  check?(query: Static<Q>, ctx: { arrivedAt: Date; caller: Caller }): void;
  handler(ctx: RouteContext<Static<Q>>): Promise<Static<R> | RawJson | RawCsv>;
}

/**
 * A route as the route table holds it, whatever its query and response types: what it declares, and
 * `register`, which keeps its typed check and handler. RouteDefinition is invariant in its query type
 * (check, handler and the site rule read the query), so routes of different queries share no wider type.
 */
export interface AnyRoute extends Omit<RouteDefinition, 'site' | 'check' | 'handler'> {
  /** set when the route reads site_id (and tenant_id) and checks access to them */
  site?: { inactive: 'reject' | 'allow' };
  /** adds the route to app behind the pipeline, entered by the strategy of `options` (default: tokens) */
  register(app: FastifyInstance, deps: AppDeps, options?: RegisterOptions): void;
}

/** How a route is served: /v1 takes the defaults; the dashboard and share links name their own way in. */
export interface RegisterOptions {
  /** default: tokens, and embed tokens where the route has an embed name */
  strategy?: AuthStrategy;
  /** keeps the route out of /openapi.json (a way in that another document describes) */
  hidden?: boolean;
}

export function defineRoute<Q extends TObject, R extends TSchema>(def: RouteDefinition<Q, R>): AnyRoute {
  return { ...def, register: (app, deps, options) => registerRoute(app, deps, def, options) };
}

/** What the read pipeline's onRequest stage found, for its handler stage. */
export interface ReadRouteState {
  caller: Caller;
  arrivedAt: Date;
  format: Format;
  /** the site read with the caller, for the site rule (Admission.site) */
  site?: { id: string; site: Site | null };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** set by the read pipeline's first stage (define-route.ts); null on any other route */
    readRoute: ReadRouteState | null;
  }
}

/** 503: CONTROL_PLANE_UNAVAILABLE, since every route reads its caller from the control plane */
const BASE_ERRORS = [401, 403, 422, 429, 500, 503] as const;

/** The text/csv media type's schema: one string, the whole file. */
const CSV_SCHEMA = { type: 'string' };

function registerRoute<Q extends TObject, R extends TSchema>(
  app: FastifyInstance,
  deps: AppDeps,
  def: RouteDefinition<Q, R>,
  options: RegisterOptions = {},
): void {
  const strategy = options.strategy ?? (def.embed ? tokenOrEmbedStrategy : tokenStrategy);
  const post = def.method === 'POST';
  // a POST route's parameters are its body: a site_id, a tenant_id, and for embeds the seal, read there
  const allowed = new Set(post ? ['site_id', 'tenant_id'] : Object.keys(def.querystring?.properties ?? {}));
  const input = (request: FastifyRequest) => (post ? request.body : request.query) as Record<string, unknown>;
  const integers = new Set(
    (Object.entries(def.querystring?.properties ?? {}) as [string, { type?: unknown }][])
      .filter(([, s]) => s.type === 'integer')
      .map(([name]) => name),
  );
  const metrics = deps.metrics;
  const statuses = [...new Set([...BASE_ERRORS, ...(def.errors ?? [])])].sort();
  // widened: Fastify's reply type cannot follow a generic schema (RouteDefinition checks the handler against R)
  const response: TSchema = def.response;
  const csv = def.csv ? { schema: { ...CSV_SCHEMA, description: def.csv.description } } : null;
  const ok = csv ? { description: response.description, content: { 'application/json': { schema: response }, 'text/csv': csv } } : response;

  // Fastify's way to carry request state: declared once, so every request has the same shape
  if (!app.hasRequestDecorator('readRoute')) app.decorateRequest('readRoute', null);
  const admit = async (request: FastifyRequest, reply: FastifyReply) => {
    const arrivedAt = deps.clock.now();
    // Both representations of one url are different answers to a cache between client and server.
    if (csv) reply.header('Vary', 'Accept');
    const { caller, rate, site } = await strategy.admit(request, reply, { deps, arrivedAt });
    const params = input(request);
    if (caller.seal && isRecord(params)) sealQuery(params, caller.seal, allowed);
    const limited = await applyRateLimit(deps.limiter, rate, arrivedAt.getTime());
    if (limited) reply.headers(limited.headers);
    const format: Format = csv ? negotiateFormat(request.headers.accept) : 'json';
    authorizeRoute(caller, def, { csv: format === 'csv' });
    // a POST route takes no query parameters at all
    checkParameterNames(request.query as Record<string, unknown>, post ? new Set() : allowed, integers);
    request.readRoute = { caller, arrivedAt, format, site };
  };
  app.route({
    method: post ? 'POST' : 'GET',
    url: def.url,
    config: { strategy: strategy.name },
    schema: {
      operationId: def.operationId,
      summary: def.summary,
      description: def.description,
      tags: def.tags,
      // a copy per route: the document is built from (and finished in) these objects
      security: strategy.security.map((s) => ({ ...s })),
      ...(options.hidden ? { hide: true } : {}),
      ...(def.querystring ? { querystring: def.querystring } : {}),
      ...(post && def.body ? { body: def.body } : {}),
      response: { 200: ok, ...errorResponses(statuses) },
    },
    // the body schema documents; the route's check parses (its 422s name the JSON path of the field)
    ...(post ? { validatorCompiler: () => () => true, preValidation: admit } : { onRequest: admit }),
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const state = request.readRoute!;
      // what the schema validated (and coerced) against def.querystring, or the body of a POST route
      const query = input(request) as Static<Q>;
      def.check?.(query, state);
      let site: Site | null = null;
      let tenant: Tenant | null = null;
      if (def.site) {
        const q = input(request) as { site_id: string; tenant_id?: string | null };
        const rule = def.site.tenantRequiredForRestrictedToken;
        const known = def.site.hostnames ? await byIdOrHostname(deps, q.site_id, state.site) : state.site;
        ({ site, tenant } = await resolveSiteAccess(deps.catalog, state.caller, known?.id ?? q.site_id, q.tenant_id ?? undefined, {
          inactive: def.site.inactive,
          tenantRequiredForRestrictedToken: typeof rule === 'function' ? rule(query) : rule === true,
          known,
        }));
      }
      const { caller, arrivedAt, format } = state;
      const { meter, charge } = requestMeter(
        { ledger: deps.ledger, workspaceId: caller.workspace.id, policy: caller.api, arrivedAt },
        caller.metering,
        metrics ? (units) => metrics.unitsCharged(units) : undefined,
      );
      const ctx: RouteContext<Static<Q>> = {
        routeUrl: def.url,
        deps,
        caller,
        query,
        format,
        requestId: request.id,
        arrivedAt,
        site,
        tenant,
        log: request.log,
        meter,
        charge,
      };
      const result = await def.handler(ctx);
      if (result instanceof RawJson) return reply.type('application/json; charset=utf-8').send(result.body);
      if (result instanceof RawCsv) {
        return (
          reply
            .type('text/csv; charset=utf-8')
            // a quoted-string holds no quote or backslash; ids and dates need nothing beyond this set
            .header('Content-Disposition', `attachment; filename="${result.filename.replace(/[^A-Za-z0-9._-]/g, '_')}"`)
            .send(result.body)
        );
      }
      return result;
    },
  });
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The site a site_id names: the site of that id, else the site holding that hostname (lower case, as
 * sites store them). Whose it is, the access check that follows says, with the same answer for a site
 * that is not the caller's as for one that does not exist.
 */
async function byIdOrHostname(deps: AppDeps, siteId: string, known: ReadRouteState['site']): Promise<{ id: string; site: Site | null }> {
  if (known?.id === siteId && known.site) return known;
  const byId = await deps.catalog.getSite(siteId);
  if (byId) return { id: siteId, site: byId };
  const byHost = await deps.catalog.findSiteByHostname(siteId.toLowerCase());
  return byHost ? { id: byHost.id, site: byHost } : { id: siteId, site: null };
}

/**
 * An embed or a share reads its own site and tenant: a request that names none reads them (one that names
 * another is refused by the site and tenant checks, its grant holding only these).
 */
function sealQuery(query: Record<string, unknown>, seal: Seal, allowed: ReadonlySet<string>): void {
  if (allowed.has('site_id') && query.site_id === undefined) query.site_id = seal.siteId;
  if (allowed.has('tenant_id') && query.tenant_id === undefined && seal.tenantId !== null) query.tenant_id = seal.tenantId;
}

/** Plain decimal digits: what the schema's integer coercion would otherwise read from 1e3, 0x10, " 10" or 10.0. */
const DECIMAL = /^[0-9]{1,15}$/;

/**
 * Unknown and repeated parameters are refused by name before the schema sees them (docs/product.md §8.9), and
 * integer parameters unless written as plain decimal digits. A value no store can hold (a NUL, a lone
 * surrogate) is refused here too, before any lookup: the authentication strategies read site_id with the
 * token only when it is storable, so such a value first meets a store nowhere.
 */
function checkParameterNames(query: Record<string, unknown>, allowed: ReadonlySet<string>, integers: ReadonlySet<string>): void {
  for (const [name, value] of Object.entries(query ?? {})) {
    if (!allowed.has(name)) throw invalidParams(`Unknown query parameter ${name}.`, { parameter: name });
    if (Array.isArray(value)) throw invalidParams(`Query parameter ${name} is repeated.`, { parameter: name });
    const unstorable = typeof value === 'string' ? unstorableReason(value) : null;
    if (unstorable !== null) throw invalidParams(`Invalid query parameter ${name}: it ${unstorable}.`, { parameter: name });
    if (integers.has(name) && !DECIMAL.test(value as string))
      throw invalidParams(`Invalid query parameter ${name}: must be an integer written in decimal digits.`, { parameter: name });
  }
}
