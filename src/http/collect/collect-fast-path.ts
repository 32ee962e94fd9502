// POST /api/event and its preflight straight from node:http, ahead of Fastify's routing: the route is
// the one every page view of every tracked site calls, and Fastify's generic pipeline (routing, hooks,
// the content-type parser, the reply's serialization, a logger per request) cost it more than the
// collection itself. Only requests whose every header the route's semantics are sure of are taken:
// the exact path, a Host, a Content-Length and no Transfer-Encoding, no Content-Type or one the
// route accepts. Anything else (a query string, a chunked body, an odd type) falls through to Fastify
// unchanged, which answers it through the same CollectEndpoint.
import type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { RouteMetrics } from '../../ports/metrics.js';
import { envelope } from '../server/error-envelope.js';
import { requestIdFor } from '../server/request-id.js';
import { COLLECT_PATH, CORS_HEADER, MAX_EVENT_BYTES, type CollectAnswer, type CollectEndpoint } from './collect-endpoint.js';

/** true: the request was taken (and will be answered) */
export type RawHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

export interface FastPathOptions {
  endpoint: CollectEndpoint;
  /** request.ip's computation under the app's trustProxy */
  clientAddress: (req: IncomingMessage) => string | undefined;
  /** the app's logger: errors, and Fastify's two request lines where the level keeps them */
  log: FastifyBaseLogger;
  /** the route's HTTP metrics (what Fastify's onResponse hook records for other requests) */
  routeMetrics: RouteMetrics | undefined;
}

/** The types Fastify's parser takes as they are and the route accepts (anything else goes to Fastify). */
const PLAIN_TYPE = /^(?:text\/plain|application\/json)(?:[ \t]*;[ \t]*charset=[\w-]+)?$/i;

export function collectFastPath(o: FastPathOptions): RawHandler {
  return (req, res) => {
    if (req.url !== COLLECT_PATH) return false;
    const h = req.headers;
    if (h.host === undefined || h['transfer-encoding'] !== undefined) return false;
    if (req.method === 'POST') {
      const type = h['content-type'];
      if (h['content-length'] === undefined || (type !== undefined && !PLAIN_TYPE.test(type))) return false;
      servePost(o, req, res);
      return true;
    }
    if (req.method === 'OPTIONS') {
      if (h['content-type'] !== undefined || (h['content-length'] !== undefined && h['content-length'] !== '0')) return false;
      const exchange = new Exchange(o, req, res);
      exchange.answer(o.endpoint.preflight(h['access-control-request-headers']));
      return true;
    }
    return false;
  };
}

function servePost(o: FastPathOptions, req: IncomingMessage, res: ServerResponse): void {
  const exchange = new Exchange(o, req, res);
  const clientIp = o.clientAddress(req);
  const refusal = o.endpoint.limit(clientIp);
  if (refusal !== null) {
    exchange.answer(refusal);
    return;
  }
  const length = Number(req.headers['content-length']);
  if (length > MAX_EVENT_BYTES) {
    exchange.answer(o.endpoint.tooLarge());
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('error', (err: Error & { statusCode?: number }) => {
    // as Fastify's body reader: a broken body is the client's (400)
    if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
    exchange.fail(err);
  });
  req.on('end', () => {
    const body = chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8');
    o.endpoint
      .accept({
        contentType: req.headers['content-type'],
        body,
        clientIp: clientIp as string,
        userAgent: req.headers['user-agent'] ?? null,
      })
      .then(
        (answer) => exchange.answer(answer),
        (err: unknown) => exchange.fail(err),
      );
  });
}

/** One request and its answer: the id, the timing and the logging Fastify would have given it. */
class Exchange {
  readonly id: string;
  private readonly startMs = performance.now();
  /** Fastify's per-request child logger, only where its level writes the request lines */
  private readonly log: FastifyBaseLogger | null;

  constructor(
    private readonly o: FastPathOptions,
    req: IncomingMessage,
    private readonly res: ServerResponse,
  ) {
    this.id = requestIdFor(req);
    this.log = writesInfo(o.log) ? o.log.child({ reqId: this.id }) : null;
    // the same line Fastify writes for its routes (server/log-redaction.ts: no client address)
    this.log?.info({ req: { method: req.method, url: req.url, host: req.headers.host } }, 'incoming request');
  }

  fail(err: unknown): void {
    this.answer(this.o.endpoint.failure(err, this.log ?? this.o.log.child({ reqId: this.id }), this.id));
  }

  answer(a: CollectAnswer): void {
    const res = this.res;
    if (res.headersSent || res.destroyed) return;
    const headers: OutgoingHttpHeaders = { [CORS_HEADER]: '*', ...a.headers };
    let body: string | undefined;
    if (a.error) {
      body = JSON.stringify(envelope(a.error.code, a.error.message, this.id, a.error.details));
      headers['content-type'] = 'application/json; charset=utf-8';
    } else if (a.status === 202) {
      body = 'ok';
      headers['content-type'] = 'text/plain; charset=utf-8';
    }
    headers['x-request-id'] = this.id;
    if (body !== undefined) headers['content-length'] = Buffer.byteLength(body);
    res.writeHead(a.status, headers);
    res.end(body);
    const ms = performance.now() - this.startMs;
    this.o.routeMetrics?.observe(a.status, ms / 1000);
    this.log?.info({ res: { statusCode: a.status }, responseTime: ms }, 'request completed');
  }
}

/** Fastify's logger writes its request lines (a pino logger at info or below; not the silent stand-in). */
function writesInfo(log: FastifyBaseLogger): boolean {
  const l = log as FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };
  return typeof l.isLevelEnabled === 'function' && l.isLevelEnabled('info');
}

/** Puts `first` ahead of the server's own request listeners (Fastify's): what it does not take reaches them unchanged. */
export function answerFirst(server: Server, first: RawHandler): void {
  const rest = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (first(req, res)) return;
    for (const listener of rest) listener.call(server, req, res);
  });
}
