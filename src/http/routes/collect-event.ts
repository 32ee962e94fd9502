// POST /api/event: live collection (docs/product.md §9), beside /v1 (which stays GET-only), in the
// OpenAPI document under the tag Collection, without a token. Browsers on any origin may send it
// (CORS, preflight answered); a body is at most 8 KiB; each client address has a rate limit. Errors
// are the spec's envelope with X-Request-Id, like every other answer.
import rateLimit from '@fastify/rate-limit';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, ERROR_CATALOG } from '../../domain/errors.js';
import type { AppDeps } from '../../services/deps.js';
import { envelope } from '../error-envelope.js';
import { ErrorEnvelope } from '../schemas/common.js';
import { TrackerEventSchema } from '../schemas/collect.js';

export const COLLECT_PATH = '/api/event';
/** The largest body accepted (Plausible's own limit is of this order; a real event is a few hundred bytes). */
export const MAX_EVENT_BYTES = 8 * 1024;
const PREFLIGHT_MAX_AGE_S = 86_400;
const ACCEPTED_TYPES = new Set(['application/json', 'text/plain']);

const error = (description: string) => ({ ...ErrorEnvelope, description });

/** What the document says of the route; the body is read and checked by the handler (tracker-payload.ts). */
const SCHEMA = {
  operationId: 'sendEvent',
  summary: 'Collect one event from a page or a server',
  description:
    "Takes what Plausible's tracker (`/js/script.js`, `@plausible-analytics/tracker`) and its Events API send, as JSON (`application/json`, " +
    'or `text/plain` as the tracker sends it to spare a preflight), at most 8 KiB. No token: any origin may send (CORS). The client address ' +
    '(`X-Forwarded-For` only from proxies FOOTFALL_TRUST_PROXY trusts) and `User-Agent` give the visitor key, device and location, then are dropped. ' +
    '202 once the event is on disk, readable through /v1 within seconds; the same 202 for a domain no site has (nothing stored, nothing revealed). ' +
    'Each client address may send FOOTFALL_COLLECT_RATE_LIMIT events a minute (default 600).',
  tags: ['Collection'],
  consumes: ['application/json', 'text/plain'],
  body: TrackerEventSchema,
  response: {
    202: { description: 'Accepted (or ignored: a domain no site has)', content: { 'text/plain': { schema: { type: 'string', enum: ['ok'] } } } },
    400: error('The body is not a JSON object'),
    413: error('The body is larger than 8 KiB'),
    415: error('A Content-Type other than application/json or text/plain'),
    422: error('A field is missing or malformed: details.field names it'),
    429: error('Too many events from this client address this minute: details.retry_after_seconds, Retry-After'),
    500: error('Unexpected failure'),
  },
};

function sendError(request: FastifyRequest, reply: FastifyReply, status: number, message: string, details?: Record<string, unknown>) {
  return reply.code(status).send(envelope('INVALID_PARAMS', message, request.id, details));
}

export async function registerCollectEvent(app: FastifyInstance, deps: AppDeps & { collector: NonNullable<AppDeps['collector']> }): Promise<void> {
  const collector = deps.collector;
  await app.register(async (scope) => {
    // Every answer of this scope may be read by a page of any origin (no credentials are involved).
    scope.addHook('onRequest', (_request, reply, done) => {
      reply.header('Access-Control-Allow-Origin', '*');
      done();
    });
    if (deps.config.collectRateLimit > 0) {
      await scope.register(rateLimit, {
        global: false,
        cache: 50_000,
        // Only the refusal says anything (X-RateLimit-Reset would not mean what it means on /v1).
        addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
        addHeaders: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': false, 'retry-after': true },
        errorResponseBuilder: (_request, ctx) =>
          new ApiError('RATE_LIMITED', `Too many events from this address: at most ${ctx.max} a minute; retry in ${ctx.after}.`, {
            retry_after_seconds: Math.max(1, Math.ceil(ctx.ttl / 1000)),
          }),
      });
    }
    // The body is read as text whatever its type says (the tracker sends JSON as text/plain to spare
    // browsers a preflight); the handler decides which types it takes.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MAX_EVENT_BYTES }, (_request, body, done) => done(null, body));

    scope.setErrorHandler((err: FastifyError, request, reply) => {
      if (err instanceof ApiError) return reply.code(err.status).send(envelope(err.code, err.message, request.id, err.details));
      if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
        return sendError(request, reply, 413, `The event is larger than ${MAX_EVENT_BYTES} bytes.`, { max_bytes: MAX_EVENT_BYTES });
      if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) return sendError(request, reply, 400, err.message);
      request.log.error({ err, request_id: request.id }, 'collection failed');
      return reply.code(500).send(envelope('INTERNAL_ERROR', ERROR_CATALOG.INTERNAL_ERROR.message, request.id));
    });

    // Neither answer has a body worth compressing (a 202's `ok`, an envelope of a few hundred bytes):
    // the compression hooks would only cost every request.
    scope.options(COLLECT_PATH, { schema: { hide: true }, compress: false }, async (request, reply) => {
      const asked = request.headers['access-control-request-headers'];
      return reply
        .code(204)
        .header('Access-Control-Allow-Methods', 'POST, OPTIONS')
        .header('Access-Control-Allow-Headers', typeof asked === 'string' && asked.length <= 1024 ? asked : 'Content-Type')
        .header('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_S))
        .send();
    });

    scope.post(
      COLLECT_PATH,
      {
        bodyLimit: MAX_EVENT_BYTES,
        compress: false,
        schema: SCHEMA,
        // The handler reads the body (a string: see the parser above) and names the bad field itself.
        validatorCompiler: () => () => true,
        config: deps.config.collectRateLimit > 0 ? { rateLimit: { max: deps.config.collectRateLimit, timeWindow: 60_000 } } : {},
      },
      async (request, reply) => {
        const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
        if (type !== '' && !ACCEPTED_TYPES.has(type)) {
          deps.metrics?.collected('rejected');
          return sendError(request, reply, 415, `Content-Type ${type} is not accepted; send the event as application/json or text/plain.`);
        }
        const body = typeof request.body === 'string' ? request.body : '';
        const out = await collector.collect({ body, clientIp: request.ip, userAgent: request.headers['user-agent'] ?? null });
        deps.metrics?.collected(out.kind === 'invalid' ? 'rejected' : out.kind === 'accepted' ? (out.engagement ? 'engagement' : 'accepted') : 'ignored');
        if (out.kind === 'invalid') return sendError(request, reply, out.status, out.message, out.field ? { field: out.field } : undefined);
        // What the tracker reads is the status; an unknown domain gets the very same answer.
        return reply.code(202).type('text/plain; charset=utf-8').send('ok');
      },
    );
  });
}
