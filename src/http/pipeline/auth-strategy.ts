// The way into a route (docs/product.md §7.7): an authentication strategy turns a request into an
// Admission (the Caller, and the rate window it counts against) or throws 401 UNAUTHORIZED. The route
// pipeline (define-route.ts) runs the same gates after it whatever the strategy; the Caller it makes says
// what the request may read, under which rules, and whether it is metered.
//
//   route.register(app, deps)                                    // /v1: tokenStrategy (tokenOrEmbedStrategy where embeds read)
//   route.register(scope, deps, { strategy: sessionStrategy })   // e.g. inside a plugin with a prefix
//   registerReadBatch(app, deps, { strategy: embedStrategy, ... }) // the embed page's read batch
import type { FastifyReply, FastifyRequest } from 'fastify';
import { looksLikeJwt } from '../../domain/embeds.js';
import { ApiError } from '../../domain/errors.js';
import { isStorableText } from '../../domain/storable-text.js';
import { authenticate, bearerOf } from '../../services/authenticate.js';
import { looksLikeSecret } from '../../domain/tokens.js';
import { admitEmbedToken } from '../../services/embeds/embed-admission.js';
import type { Admission } from '../../services/caller.js';
import type { AppDeps } from '../../services/deps.js';

export interface AuthStrategy {
  /** how route listings and tests name it: token, session, embed */
  name: string;
  /** the OpenAPI security requirement of the routes it guards; never empty (they are authenticated) */
  security: Record<string, string[]>[];
  /**
   * The caller of this request, or throws ApiError('UNAUTHORIZED'). Runs first, before the rate limit:
   * it may read anything of the request (headers, cookies, the raw query) and set response headers
   * (a renewed session cookie); it must not send the reply.
   */
  admit(request: FastifyRequest, reply: FastifyReply, ctx: { deps: AppDeps; arrivedAt: Date }): Promise<Admission>;
}

/** /v1's way in: `Authorization: Bearer ff_live_...`, metered, rate-counted per token. */
export const tokenStrategy: AuthStrategy = {
  name: 'token',
  security: [{ bearerAuth: [] }],
  async admit(request, _reply, { deps }) {
    const authorization = oneAuthorization(request);
    if (isEmbedBearer(authorization))
      throw new ApiError(
        'UNAUTHORIZED',
        'Embed tokens read the reports, metrics and goals of their site only, not this route: use an API token.',
      );
    return authenticate(deps.catalog, authorization, siteIdOf(request));
  },
};

/**
 * The request's one site_id as sent (checked later like any parameter): read with the token. One no store
 * can hold is not read: the parameter check refuses it after the token, scope and rate gates.
 */
export function siteIdOf(request: FastifyRequest): string | undefined {
  // a POST route's parameters are its JSON body (define-route.ts admits its caller once the body is read)
  const params = request.method === 'POST' ? request.body : request.query;
  const id = typeof params === 'object' && params !== null ? (params as Record<string, unknown>).site_id : undefined;
  return typeof id === 'string' && isStorableText(id) ? id : undefined;
}

/**
 * The /v1 routes an embed may read (those with an embed name): an API token as on every /v1 route, or an
 * embed token (a JWT) whose caller is its parent's, sealed to its site and tenant.
 */
export const tokenOrEmbedStrategy: AuthStrategy = {
  name: 'token+embed',
  security: [{ bearerAuth: [] }, { embedToken: [] }],
  async admit(request, reply, ctx) {
    const authorization = oneAuthorization(request);
    if (!isEmbedBearer(authorization)) return tokenStrategy.admit(request, reply, ctx);
    return admitEmbedToken(ctx.deps, bearerOf(authorization)!);
  },
};

/**
 * The embed page's own requests (its read batch): an embed token only. An API token never sits in a page,
 * so one sent here is refused, not read with; a missing or malformed bearer gets /v1's 401.
 */
export const embedStrategy: AuthStrategy = {
  name: 'embed',
  security: [{ embedToken: [] }],
  async admit(request, _reply, { deps }) {
    const authorization = oneAuthorization(request);
    if (isEmbedBearer(authorization)) return admitEmbedToken(deps, bearerOf(authorization)!);
    const bearer = bearerOf(authorization);
    if (bearer !== undefined && looksLikeSecret(bearer))
      throw new ApiError(
        'UNAUTHORIZED',
        'The embed page reads with an embed token, never an API token: mint an embed token with an embed key.',
      );
    throw new ApiError('UNAUTHORIZED');
  },
};

function oneAuthorization(request: FastifyRequest): string | undefined {
  // Node keeps the first of two Authorization headers: which one the client meant is unknown.
  if (authorizationCount(request.raw.rawHeaders) > 1) throw new ApiError('UNAUTHORIZED', 'Send exactly one Authorization header.');
  return request.headers.authorization;
}

function isEmbedBearer(authorization: string | undefined): boolean {
  const bearer = bearerOf(authorization);
  return bearer !== undefined && looksLikeJwt(bearer);
}

function authorizationCount(raw: readonly string[]): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === 13 && raw[i].toLowerCase() === 'authorization') n++;
  return n;
}
