// Several reads in one request, each answer sent back as an NDJSON line the moment it is ready: the
// dashboard's (GET /app/api/reads), a share link's (GET /share/<slug>/api/reads) and the embed page's
// (GET /embed/api/reads). A browser opens at most six connections to one origin over HTTP/1.1, so a page
// that sends a dozen reads at once has them wait for each other in waves; one request carrying them all
// lets the server run them side by side. Each read is made as the same request sent on its own would be
// (the route's own pipeline, through Fastify's inject, with this request's credential): the same
// authentication, rate window, metering, parameters, cache and answer. One set of services, never a
// second path.
import { PassThrough, type Transform } from 'node:stream';
import zlib from 'node:zlib';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { arrayParameters, checkInput, repeatedAsArrays, type Refusal } from './check-input.js';

/** A page load makes 14; a view change fewer. */
export const MAX_BATCHED_READS = 32;
/** The longest member of `r` (a read's path and query) a batch takes. */
export const MAX_READ_LENGTH = 4096;

/** What every batch takes: `r`, repeated, nothing else. */
export const ReadBatchQuery = Type.Object(
  {
    r: Type.Array(Type.String({ minLength: 1, maxLength: MAX_READ_LENGTH }), {
      minItems: 1,
      maxItems: MAX_BATCHED_READS,
      description: "A read: its path and query below the batch's own prefix (e.g. /v1/reports/overview?site_id=...), URL-encoded",
    }),
  },
  { additionalProperties: false },
);
const REPEATED = arrayParameters(ReadBatchQuery);

/**
 * The check of a batch's members, whichever way in it came: `r` within its bounds and nothing else, by
 * ReadBatchQuery (`refuse`: the way in's 422), then each member a read of `paths` (checkedReads). The
 * management API's batch route declares ReadBatchQuery as its query, which its pipeline checks the same way.
 */
export function readBatchMembers(
  query: unknown,
  paths: ReadonlySet<string>,
  refuse: Refusal,
  notARead: (index: number) => Error,
): string[] {
  const { r } = checkInput(ReadBatchQuery, repeatedAsArrays(query, REPEATED), 'query parameter', refuse);
  return checkedReads(r, paths, notARead);
}
export const READ_BATCH_MEDIA_TYPE = 'application/x-ndjson';

/** Where a batch's reads are made: below `prefix`, with this request's `credential` header (its cookie, or its Authorization). */
export interface ReadBatchTarget {
  prefix: string;
  credential: 'cookie' | 'authorization';
}

/** The members of `r` as sent, once each names one of `paths`; `refuse(index)` is the error of the first that does not. */
export function checkedReads(r: readonly string[], paths: ReadonlySet<string>, refuse: (index: number) => Error): string[] {
  return r.map((read, index) => {
    if (!paths.has(read.split('?', 1)[0])) throw refuse(index);
    return read;
  });
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
  if (accepted.has('br'))
    return { name: 'br', stream: zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } }) };
  if (accepted.has('gzip')) return { name: 'gzip', stream: zlib.createGzip() };
  return null;
}

/**
 * The query API's reads are POSTs (Plausible's body): a batch member names one by its path with the JSON
 * body in a `body` parameter (`/api/v2/query?body=%7B...%7D`), and is made as that POST. It carries the
 * batch request's X-CSRF-Token and Origin, so a session's POST twin checks them as it would alone.
 */
export const POST_READS: ReadonlySet<string> = new Set(['/api/v2/query', '/api/v2/funnel']);

/** The request a member stands for: a GET of its path and query, or the POST of a query API read. */
function memberRequest(read: string): { method: 'GET' | 'POST'; path: string; payload?: string } {
  const [path, search = ''] = read.split('?', 2);
  if (!POST_READS.has(path)) return { method: 'GET', path: read };
  return { method: 'POST', path, payload: new URLSearchParams(search).get('body') ?? '' };
}

/** One read, as its own request would be answered: the line carries its status, Retry-After and body. */
async function answerLine(request: FastifyRequest, target: ReadBatchTarget, i: number, read: string): Promise<string> {
  const credential = request.headers[target.credential];
  const userAgent = request.headers['user-agent'];
  const member = memberRequest(read);
  const post = member.method === 'POST';
  const csrf = request.headers['x-csrf-token'];
  const origin = request.headers.origin;
  const res = await request.server.inject({
    method: member.method,
    url: target.prefix + member.path,
    remoteAddress: request.ip,
    ...(post ? { payload: member.payload } : {}),
    headers: {
      accept: 'application/json',
      ...(credential ? { [target.credential]: credential } : {}),
      ...(userAgent ? { 'user-agent': userAgent } : {}),
      ...(post ? { 'content-type': 'application/json' } : {}),
      ...(post && typeof csrf === 'string' ? { 'x-csrf-token': csrf } : {}),
      ...(post && typeof origin === 'string' ? { origin } : {}),
    },
  });
  const retry = res.headers['retry-after'];
  const body = res.body.length > 0 && /json/.test(String(res.headers['content-type'] ?? '')) ? res.body : JSON.stringify(res.body);
  return `{"i":${i},"status":${res.statusCode}${retry !== undefined ? `,"retry_after":${JSON.stringify(String(retry))}` : ''},"body":${body}}\n`;
}

/** The reads run side by side; the stream the reply sends carries one line per read, in the order they finish. */
export function streamReads(request: FastifyRequest, reply: FastifyReply, reads: readonly string[], target: ReadBatchTarget): Transform {
  const encoder = encoderFor(request.headers['accept-encoding']);
  const out: Transform = encoder?.stream ?? new PassThrough();
  reply.type(READ_BATCH_MEDIA_TYPE).header('vary', 'Accept-Encoding');
  if (encoder) reply.header('content-encoding', encoder.name);
  void Promise.all(
    reads.map((read, i) =>
      answerLine(request, target, i, read)
        .catch(
          () =>
            `{"i":${i},"status":500,"body":${JSON.stringify({ error: { code: 'INTERNAL_ERROR', message: 'This read failed inside the server; ask for it again.', request_id: request.id } })}}\n`,
        )
        .then((line) => {
          if (out.destroyed) return; // the client went away: the reads still ran, as they would have alone
          out.write(line);
          if (encoder) (out as zlib.BrotliCompress | zlib.Gzip).flush();
        }),
    ),
  ).then(() => out.end());
  return out;
}
