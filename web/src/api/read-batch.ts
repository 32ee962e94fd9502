// The reads a page asks for together leave as one request (the reader's batch: GET /app/api/reads for the
// dashboard, /embed/api/reads for an embed, /share/<slug>/api/reads for a share link), and each answer is
// taken from the stream as soon as its line arrives. Over HTTP/1.1 a browser opens six connections to
// one origin: a dashboard's dozen reads sent one by one wait for each other in waves, where one request
// lets the server run them side by side. Each line is what the read alone would have answered, so the
// panels see the same Result either way. A read its window refused (429) waits out the
// Retry-After its line carries, then is asked again on its own (as any read would be).
import {
  failureFromBody,
  fetchOrFailure,
  failureOf,
  NETWORK_FAILURE_CODE,
  POST_READ_PATHS,
  postRead,
  queryString,
  read,
  type PostReadPath,
  waitOut,
  type ReadBody,
  type ReadPath,
  type ReadQuery,
  type Result,
} from './read.js';
import { csrfToken } from './csrf.js';
import { requestInit, type Reader } from './reader.js';

/** the server's bound (MAX_BATCHED_READS): a larger set leaves as several batches */
const MAX_PER_BATCH = 32;
/**
 * A batch's URL stays below this many characters: Node refuses a request whose headers pass 16 KiB
 * (431), and the cookie and the other headers need their share. Reads with long filters leave in
 * more batches instead.
 */
export const MAX_BATCH_URL = 8_192;
/** the server's bound on one member (MAX_READ_LENGTH): a longer read leaves alone */
const MAX_MEMBER = 4_096;

interface Waiting {
  /** a GET read, or a query API read (POST_READ_PATHS) whose query is its JSON body: { body } */
  path: ReadPath | PostReadPath;
  query: object;
  resolve: (result: Result<unknown>) => void;
}

const queued = new Map<Reader, Waiting[]>();

/** A read through the reader's batch: it leaves with every read asked for in the same turn. */
export function batchedRead<P extends ReadPath>(reader: Reader, path: P, query: ReadQuery<P>): Promise<Result<ReadBody<P>>>;
/** A query API read through the batch: the member carries its body as JSON (the server makes it as the POST). */
export function batchedRead<T>(reader: Reader, path: PostReadPath, query: { body: string }): Promise<Result<T>>;
export function batchedRead(reader: Reader, path: ReadPath | PostReadPath, query: object): Promise<Result<unknown>> {
  return new Promise((resolve) => {
    let list = queued.get(reader);
    if (!list) {
      queued.set(reader, (list = []));
      // every panel's layout effect of one render runs in one synchronous pass (ui/use-read.ts): the
      // batch leaves right after the last of them, before the browser lays the page out
      queueMicrotask(() => {
        queued.delete(reader);
        for (const batch of batchesOf(reader, list!)) void send(reader, batch);
      });
    }
    list.push({ path, query, resolve });
  });
}

const param = (w: Waiting) => `r=${encodeURIComponent(w.path + queryString(w.query))}`;

/** The reads in batches of MAX_PER_BATCH at most, each URL within MAX_BATCH_URL (a read too long for any batch leaves alone). */
export function batchesOf<T extends Waiting>(reader: Reader, list: readonly T[]): T[][] {
  const out: T[][] = [];
  let batch: T[] = [];
  let length = (reader.batch ?? '').length + 1;
  for (const w of list) {
    const member = param(w);
    // one the server would refuse as a member goes in a batch of its own (send() makes a lone read alone)
    if (decodeURIComponent(member).length - 2 > MAX_MEMBER) {
      out.push([w]);
      continue;
    }
    const add = member.length + 1;
    if (batch.length && (batch.length === MAX_PER_BATCH || length + add > MAX_BATCH_URL)) {
      out.push(batch);
      batch = [];
      length = (reader.batch ?? '').length + 1;
    }
    batch.push(w);
    length += add;
  }
  if (batch.length) out.push(batch);
  return out;
}

function alone(reader: Reader, w: Waiting): void {
  if (POST_READ_PATHS.has(w.path))
    void postRead(reader, w.path as PostReadPath, JSON.parse((w.query as { body: string }).body)).then(w.resolve);
  else void read(reader, w.path as ReadPath, w.query as never).then(w.resolve);
}

/** A read the window refused: asked again on its own once its Retry-After is waited out (too long: the refusal stands). */
function afterWaiting(reader: Reader, w: Waiting, retryAfter: string | null | undefined, refusal: () => Promise<Result<unknown>>): void {
  void waitOut(retryAfter).then(async (waited) => (waited ? alone(reader, w) : w.resolve(await refusal())));
}

async function send(reader: Reader, batch: Waiting[]): Promise<void> {
  if (batch.length === 1) return alone(reader, batch[0]);
  const url = `${reader.batch}?${batch.map(param).join('&')}`;
  // a query API member is made as its POST, which checks the session's CSRF token: the batch carries it
  const csrf = reader.csrf && batch.some((w) => POST_READ_PATHS.has(w.path)) ? await csrfToken() : null;
  const res = await fetchOrFailure(url, requestInit(reader, 'application/x-ndjson', undefined, csrf));
  if (!(res instanceof Response)) {
    for (const w of batch) w.resolve({ ok: false, error: res });
    return;
  }
  if (res.status === 429) {
    const refusal = failureOf(res).then((error): Result<unknown> => ({ ok: false, error }));
    for (const w of batch) afterWaiting(reader, w, res.headers.get('retry-after'), () => refusal);
    return;
  }
  if (res.status !== 200 || !res.body) {
    const error = await failureOf(res);
    if (res.status === 401) reader.onUnauthorized?.(error.message);
    for (const w of batch) w.resolve({ ok: false, error });
    return;
  }
  const answered = new Set<number>();
  const take = (text: string) => {
    const line = JSON.parse(text) as { i: number; status: number; retry_after?: string; body: unknown };
    const w = batch[line.i];
    if (!w || answered.has(line.i)) return;
    answered.add(line.i);
    if (line.status === 200) return w.resolve({ ok: true, data: line.body });
    if (line.status === 429)
      return afterWaiting(reader, w, line.retry_after, async () => ({ ok: false, error: failureFromBody(429, line.body) }));
    const error = failureFromBody(line.status, line.body);
    if (line.status === 401) reader.onUnauthorized?.(error.message);
    w.resolve({ ok: false, error });
  };
  const stream = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let rest = '';
  try {
    for (;;) {
      const { done, value } = await stream.read();
      if (done) break;
      rest += value;
      let nl: number;
      while ((nl = rest.indexOf('\n')) >= 0) {
        const text = rest.slice(0, nl);
        rest = rest.slice(nl + 1);
        if (text) take(text);
      }
    }
    if (rest.trim()) take(rest);
  } catch {
    // the connection broke mid-answer: what did not arrive is said below
  }
  const cut = {
    status: 0,
    code: NETWORK_FAILURE_CODE,
    message: 'The answer was cut off before this read arrived. Check the connection, then reload the page.',
  };
  batch.forEach((w, i) => {
    if (!answered.has(i)) w.resolve({ ok: false, error: cut });
  });
}
