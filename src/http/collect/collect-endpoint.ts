// What POST /api/event (and its preflight) answers, whichever path took the request: the Fastify
// route (collect-event.ts: inject, requests the raw path leaves to Fastify) or the raw node:http path
// (collect-fast-path.ts). Each path only reads the request and writes the answer in its own way.
import type { FastifyBaseLogger } from 'fastify';
import { ApiError, ControlPlaneUnavailableError, ERROR_CATALOG, type ErrorCode } from '../../domain/errors.js';
import { UnstorableTextError } from '../../domain/storable-text.js';
import type { EventCollector } from '../../ports/event-collector.js';
import type { Metrics } from '../../ports/metrics.js';
import { RETRY_AFTER_SECONDS } from '../server/error-envelope.js';
import type { CollectRateLimit } from './collect-rate-limit.js';

export const COLLECT_PATH = '/api/event';
/** The largest body accepted (Plausible's own limit is of this order; a real event is a few hundred bytes). */
export const MAX_EVENT_BYTES = 8 * 1024;
const PREFLIGHT_MAX_AGE_S = '86400';
const ACCEPTED_TYPES = new Set(['application/json', 'text/plain']);
/** Every answer of the route may be read by a page of any origin (no credentials are involved). */
export const CORS_HEADER = 'access-control-allow-origin';

/** One answer: 202 `ok`, 204 (preflight), or an error envelope; headers beyond CORS and X-Request-Id. */
export interface CollectAnswer {
  status: number;
  headers?: Record<string, string>;
  error?: { code: ErrorCode; message: string; details?: Record<string, unknown> };
}

export interface CollectInput {
  /** the Content-Type header as sent */
  contentType: string | undefined;
  /** the body read as UTF-8 text ('' when none) */
  body: string;
  clientIp: string;
  userAgent: string | null;
}

const ACCEPTED: CollectAnswer = { status: 202 };

function refused(status: number, message: string, details?: Record<string, unknown>): CollectAnswer {
  return { status, error: { code: 'INVALID_PARAMS', message, ...(details ? { details } : {}) } };
}

export class CollectEndpoint {
  constructor(
    private readonly collector: EventCollector,
    private readonly metrics: Pick<Metrics, 'collected'> | undefined,
    private readonly rateLimit: CollectRateLimit | null,
  ) {}

  preflight(asked: string | string[] | undefined): CollectAnswer {
    return {
      status: 204,
      headers: {
        'access-control-allow-methods': 'POST, OPTIONS',
        'access-control-allow-headers': typeof asked === 'string' && asked.length <= 1024 ? asked : 'Content-Type',
        'access-control-max-age': PREFLIGHT_MAX_AGE_S,
      },
    };
  }

  /** Counts the request against its address's limit: the 429 once past it, before the body is read. */
  limit(clientIp: string | undefined): CollectAnswer | null {
    const r = this.rateLimit?.hit(clientIp as string) ?? null;
    if (r === null) return null;
    return {
      status: 429,
      headers: r.headers,
      error: {
        code: 'RATE_LIMITED',
        message: `Too many events from this address: at most ${r.max} a minute; retry in ${r.after}.`,
        details: { retry_after_seconds: r.retryAfterSeconds },
      },
    };
  }

  tooLarge(): CollectAnswer {
    return refused(413, `The event is larger than ${MAX_EVENT_BYTES} bytes.`, { max_bytes: MAX_EVENT_BYTES });
  }

  async accept(input: CollectInput): Promise<CollectAnswer> {
    const type = (input.contentType ?? '').split(';')[0].trim().toLowerCase();
    if (type !== '' && !ACCEPTED_TYPES.has(type)) {
      this.metrics?.collected('rejected');
      return refused(415, `Content-Type ${type} is not accepted; send the event as application/json or text/plain.`);
    }
    const out = await this.collector.collect({ body: input.body, clientIp: input.clientIp, userAgent: input.userAgent });
    this.metrics?.collected(
      out.kind === 'invalid' ? 'rejected' : out.kind === 'accepted' ? (out.engagement ? 'engagement' : 'accepted') : 'ignored',
    );
    if (out.kind === 'invalid') return refused(out.status, out.message, out.field ? { field: out.field } : undefined);
    // What the tracker reads is the status; an unknown domain gets the very same answer.
    return ACCEPTED;
  }

  /** A failure on the way (the body's reading, the collector): its envelope, the unexpected ones logged. */
  failure(err: unknown, log: FastifyBaseLogger, requestId: string): CollectAnswer {
    if (err instanceof ApiError)
      return { status: err.status, error: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) } };
    // a domain the collector never resolved, while the control plane is down (a known one is still taken)
    if (err instanceof ControlPlaneUnavailableError) {
      log.warn({ err, request_id: requestId }, 'collection refused: control plane unavailable');
      const code = 'CONTROL_PLANE_UNAVAILABLE';
      return {
        status: 503,
        headers: { 'retry-after': String(RETRY_AFTER_SECONDS[code]) },
        error: { code, message: ERROR_CATALOG[code].message },
      };
    }
    if (err instanceof UnstorableTextError) return refused(422, err.message);
    const e = err as { code?: unknown; statusCode?: unknown; message?: string };
    if (e?.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return this.tooLarge();
    if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return refused(400, String(e.message));
    log.error({ err, request_id: requestId }, 'collection failed');
    return { status: 500, error: { code: 'INTERNAL_ERROR', message: ERROR_CATALOG.INTERNAL_ERROR.message } };
  }
}
