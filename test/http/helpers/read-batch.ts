// Reading the answers of a read batch (an embed's, a share link's) in the HTTP tests: its URL, its
// NDJSON lines, the answers without what differs between two sendings of one read, and the reads the
// server made (the request lines it logged).
import { Writable } from 'node:stream';

export type Line = { i: number; status: number; retry_after?: string; body: any };

export const qs = (query: Record<string, string>) => new URLSearchParams(query).toString();
export const batchUrl = (path: string, reads: readonly string[]) => `${path}?${reads.map((r) => `r=${encodeURIComponent(r)}`).join('&')}`;
/** the lines, in the order of r */
export const linesOf = (body: string): Line[] =>
  body
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line)
    .sort((a, b) => a.i - b.i);

/**
 * An answer without what differs between two sendings of the same read: its request id, whether the
 * response cache served it, and the workspace's units used so far (which the other sending moved).
 */
export function comparable(body: unknown): unknown {
  return JSON.parse(
    JSON.stringify(body, (key, value) => {
      if (key === 'request_id' || key === 'cached' || key === 'used_units') return undefined;
      if (key === 'notes' && Array.isArray(value)) return value.filter((n) => !String(n).startsWith('Served from the response cache'));
      return value;
    }),
  );
}

/** A log stream for buildApp, and the urls of the requests the server took (each "incoming request" line). */
export function requestLog(): { stream: Writable; text: () => string; urls: () => string[] } {
  let text = '';
  const stream = new Writable({ write: (chunk, _enc, done) => ((text += chunk.toString()), done()) });
  const urls = () =>
    text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg?: string; req?: { url?: string } })
      .filter((l) => l.msg === 'incoming request')
      .map((l) => l.req?.url ?? '');
  return { stream, text: () => text, urls };
}
