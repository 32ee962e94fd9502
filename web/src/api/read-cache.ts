// One request per distinct read while the page is open: the tile and the chart that show the same
// series share one answer, and back/forward redraws a view already seen without asking again. A failure
// that may pass (no connection, 429, 5xx) is not kept. refreshReads() forgets every answer and asks
// again (the first event of a new site arrived): the read keys carry an epoch that it moves on.
// Reads asked for in the same turn leave together as one request when the reader can (read-batch.ts).
import { signal } from '@preact/signals';
import { batchedRead } from './read-batch.js';
import { postRead, queryString, read, type PostReadPath, type ReadBody, type ReadPath, type ReadQuery, type Result } from './read.js';
import type { Reader } from './reader.js';

const MAX_ENTRIES = 200;
const cache = new Map<string, Promise<Result<unknown>>>();
const epoch = signal(0);

/** The key of a read (components re-read when it changes; reading it in a render subscribes to the epoch). */
export function readKey(path: string, query: object): string {
  return `${epoch.value}:${path}${queryString(query)}`;
}

export function refreshReads(): void {
  cache.clear();
  epoch.value++;
}

/** The key of a query API read: its path and body. */
export function postKey(path: PostReadPath, body: unknown): string {
  return `${epoch.value}:${path}?body=${JSON.stringify(body)}`;
}

/** The answer kept under `key`, or the one `ask` gives (kept unless it is a failure that may pass). */
function remembered<T>(key: string, ask: () => Promise<Result<T>>): Promise<Result<T>> {
  const hit = cache.get(key);
  if (hit) return hit as Promise<Result<T>>;
  const pending = ask().then((result) => {
    if (!result.ok && (result.error.status === 0 || result.error.status === 429 || result.error.status >= 500)) cache.delete(key);
    return result;
  });
  cache.set(key, pending);
  if (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value!);
  return pending;
}

export function cachedRead<P extends ReadPath>(reader: Reader, path: P, query: ReadQuery<P>): Promise<Result<ReadBody<P>>> {
  // the batch carries the reads that name a site (the dashboard's twins of /v1, every read of an embed or
  // share page); any other goes alone
  const batch = reader.batch !== undefined && 'site_id' in query;
  return remembered(`${reader.base}|${readKey(path, query)}`, () => (batch ? batchedRead : read)(reader, path, query));
}

/** A query API read (POST /api/v2/query or /funnel), kept and batched as the GET reads are. */
export function cachedPost<T>(reader: Reader, path: PostReadPath, body: unknown): Promise<Result<T>> {
  return remembered(`${reader.base}|${postKey(path, body)}`, () =>
    reader.batch !== undefined ? batchedRead<T>(reader, path, { body: JSON.stringify(body) }) : postRead<T>(reader, path, body),
  );
}

/** Forgets every answer: the embed page's token was replaced, so what it was refused may now be read. */
export function forgetReads(): void {
  cache.clear();
}
