// POST /api/event: live collection (docs/product.md §9), beside /v1 (which stays GET-only), in the
// OpenAPI document under the tag Collection, without a token. Browsers on any origin may send it
// (CORS, preflight answered); a body is at most 8 KiB; each client address has a rate limit. Errors
// are the spec's envelope with X-Request-Id, like every other answer.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../services/deps.js';
import { clientAddressReader, trustProxyOption } from '../server/client-address.js';
import { COLLECT_PATH, CORS_HEADER, CollectEndpoint, MAX_EVENT_BYTES, type CollectAnswer } from './collect-endpoint.js';
import { collectFastPath, type RawHandler } from './collect-fast-path.js';
import { CollectRateLimit } from './collect-rate-limit.js';
import { envelope } from '../server/error-envelope.js';
import { ErrorEnvelope } from '../schemas/common.js';
import { TrackerEventSchema } from './collect-schemas.js';

const RATE_WINDOW_MS = 60_000;

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
    202: {
      description: 'Accepted (or ignored: a domain no site has)',
      content: { 'text/plain': { schema: { type: 'string', enum: ['ok'] } } },
    },
    400: error('The body is not a JSON object'),
    413: error('The body is larger than 8 KiB'),
    415: error('A Content-Type other than application/json or text/plain'),
    422: error('A field is missing or malformed: details.field names it'),
    429: error('Too many events from this client address this minute: details.retry_after_seconds, Retry-After'),
    500: error('Unexpected failure'),
    503: error(
      'CONTROL_PLANE_UNAVAILABLE: the control plane is down and this domain was not resolved before it went (a domain that was keeps its 202); Retry-After',
    ),
  },
};

/** The shared endpoint's answer through Fastify (its onSend hook adds X-Request-Id). */
function sendAnswer(request: FastifyRequest, reply: FastifyReply, answer: CollectAnswer): FastifyReply {
  reply.code(answer.status);
  if (answer.headers) reply.headers(answer.headers);
  if (answer.error) return reply.send(envelope(answer.error.code, answer.error.message, request.id, answer.error.details));
  if (answer.status === 202) return reply.type('text/plain; charset=utf-8').send('ok');
  return reply.send();
}

/**
 * Registers the route (for the document, inject, and whatever the raw path leaves to Fastify) and
 * returns the raw path, which the caller puts ahead of Fastify's own request listener.
 */
export async function registerCollectEvent(
  app: FastifyInstance,
  deps: AppDeps & { collector: NonNullable<AppDeps['collector']> },
): Promise<RawHandler> {
  const limit = deps.config.collectRateLimit > 0 ? new CollectRateLimit(deps.config.collectRateLimit, RATE_WINDOW_MS) : null;
  const endpoint = new CollectEndpoint(deps.collector, deps.metrics, limit);
  await app.register(async (scope) => {
    scope.addHook('onRequest', (_request, reply, done) => {
      reply.header(CORS_HEADER, '*');
      done();
    });
    // The body is read as text whatever its type says (the tracker sends JSON as text/plain to spare
    // browsers a preflight); the handler decides which types it takes.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MAX_EVENT_BYTES }, (_request, body, done) => done(null, body));

    scope.setErrorHandler((err: FastifyError, request, reply) =>
      sendAnswer(request, reply, endpoint.failure(err, request.log, request.id)),
    );

    // Neither answer has a body worth compressing (a 202's `ok`, an envelope of a few hundred bytes):
    // the compression hooks would only cost every request.
    scope.options(COLLECT_PATH, { schema: { hide: true }, compress: false }, async (request, reply) =>
      sendAnswer(request, reply, endpoint.preflight(request.headers['access-control-request-headers'])),
    );

    scope.post(
      COLLECT_PATH,
      {
        bodyLimit: MAX_EVENT_BYTES,
        compress: false,
        schema: SCHEMA,
        // The handler reads the body (a string: see the parser above) and names the bad field itself.
        validatorCompiler: () => () => true,
        // the limit counts before the body is read, as the raw path does
        onRequest: (request, reply, done) => {
          const refusal = endpoint.limit(request.ip);
          if (refusal === null) return done();
          sendAnswer(request, reply, refusal);
        },
      },
      async (request, reply) => {
        const answer = await endpoint.accept({
          contentType: request.headers['content-type'],
          body: typeof request.body === 'string' ? request.body : '',
          clientIp: request.ip,
          userAgent: request.headers['user-agent'] ?? null,
        });
        return sendAnswer(request, reply, answer);
      },
    );
  });
  return collectFastPath({
    endpoint,
    clientAddress: clientAddressReader(trustProxyOption(deps.config.trustProxy)),
    log: app.log,
    routeMetrics: deps.metrics?.route(COLLECT_PATH),
  });
}
