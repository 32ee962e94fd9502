// Several of the dashboard's reads in one request. A browser opens at most six connections to one origin
// over HTTP/1.1, so a page that sends a dozen reads at once has them wait for each other in waves; one
// request carrying them all lets the server run them side by side, and sends each answer back as an
// NDJSON line the moment it is ready. Each read is made as the same request sent on its own would be
// (the route's own pipeline, through Fastify's inject, with this request's cookie): the same session
// check, rate window, role, parameters, cache and answer. One set of services, never a second path.
import { Type } from '@sinclair/typebox';
import { PassThrough, type Transform } from 'node:stream';
import zlib from 'node:zlib';
import type { FastifyRequest } from 'fastify';
import { invalidField } from '../../../domain/manage-errors.js';
import { DASHBOARD_READ_PATHS } from '../dashboard-reads.js';
import { APP_API_PREFIX } from '../app-api-prefix.js';
import { defineAppRoute } from '../define-app-route.js';
import { ReadBatchLineSchema } from '../schemas.js';

/** A page load makes 14; a view change fewer. */
export const MAX_BATCHED_READS = 32;
export const READ_BATCH_MEDIA_TYPE = 'application/x-ndjson';

const READ_PATHS = new Set(DASHBOARD_READ_PATHS.map((p) => p.slice(APP_API_PREFIX.length)));

/** The read a member of `r` names, checked: a dashboard read (/v1/..., the twins under /app/api), its query as sent. */
function readOf(r: string, index: number): string {
  const path = r.split('?', 1)[0];
  if (!READ_PATHS.has(path))
    throw invalidField(`r.${index}`, `Invalid query parameter r.${index}: it must be the path and query of a dashboard read below /app/api, e.g. /v1/reports/overview?site_id=...; the reads are ${[...READ_PATHS].join(', ')}.`);
  return r;
}

/** br or gzip as the client accepts them (q=0 refuses), else none: each line is flushed as it is written. */
function encoderFor(acceptEncoding: string | undefined): { name: 'br' | 'gzip'; stream: Transform } | null {
  const accepted = new Set(
    (acceptEncoding ?? '')
      .split(',')
      .map((part) => part.trim().split(';'))
      .filter(([, ...params]) => !params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(p)))
      .map(([name]) => name.trim().toLowerCase()),
  );
  // quality 4: a line leaves at once; the bytes are about those of the read's own compressed answer
  if (accepted.has('br')) return { name: 'br', stream: zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } }) };
  if (accepted.has('gzip')) return { name: 'gzip', stream: zlib.createGzip() };
  return null;
}

/** One read, as its own request would be answered: the line carries its status, Retry-After and body. */
async function answerLine(request: FastifyRequest, i: number, read: string): Promise<string> {
  const res = await request.server.inject({
    method: 'GET',
    url: APP_API_PREFIX + read,
    remoteAddress: request.ip,
    headers: { accept: 'application/json', ...(request.headers.cookie ? { cookie: request.headers.cookie } : {}), ...(request.headers['user-agent'] ? { 'user-agent': request.headers['user-agent'] } : {}) },
  });
  const retry = res.headers['retry-after'];
  const body = res.body.length > 0 && /json/.test(String(res.headers['content-type'] ?? '')) ? res.body : JSON.stringify(res.body);
  return `{"i":${i},"status":${res.statusCode}${retry !== undefined ? `,"retry_after":${JSON.stringify(String(retry))}` : ''},"body":${body}}\n`;
}

export const readBatchRoutes = [
  defineAppRoute({
    method: 'GET',
    url: '/reads',
    operationId: 'readBatch',
    summary: "Several of the dashboard's reads in one request, each answer streamed as it is ready (any signed-in person)",
    description:
      "`r` (repeated, at most 32): the path and query of a dashboard read below /app/api (`/v1/reports/overview?site_id=...`, URL-encoded). Answers `application/x-ndjson`: one line per read, in the order they finish, `{i, status, retry_after?, body}`, `i` the read's position in `r`, `status` and `body` what the read sent on its own would answer (200 and its JSON, or its error envelope). Each read counts against the session's rate window as it would alone; so does this request. For a page over HTTP/1.1, whose browser opens six connections to one origin: the reads run side by side on one.",
    tag: 'Sites',
    auth: 'session',
    query: Type.Object(
      { r: Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), { minItems: 1, maxItems: MAX_BATCHED_READS, description: 'A read: its path below /app/api and its query' }) },
      { additionalProperties: false },
    ),
    status: 200,
    produces: READ_BATCH_MEDIA_TYPE,
    response: ReadBatchLineSchema,
    handler: async ({ request, reply, query }) => {
      const reads = query.r.map(readOf);
      const encoder = encoderFor(request.headers['accept-encoding']);
      const out: Transform = encoder?.stream ?? new PassThrough();
      reply.header('vary', 'Accept-Encoding').header('cache-control', 'no-store');
      if (encoder) reply.header('content-encoding', encoder.name);
      void Promise.all(
        reads.map((read, i) =>
          answerLine(request, i, read)
            .catch(() => `{"i":${i},"status":500,"body":${JSON.stringify({ error: { code: 'INTERNAL_ERROR', message: 'This read failed inside the server; ask for it again.', request_id: request.id } })}}\n`)
            .then((line) => {
              if (out.destroyed) return; // the client went away: the reads still ran, as they would have alone
              out.write(line);
              if (encoder) (out as zlib.BrotliCompress | zlib.Gzip).flush();
            }),
        ),
      ).then(() => out.end());
      return out;
    },
  }),
];
