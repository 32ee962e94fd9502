// Streams lines out of a file or stdin in bounded memory, reporting bytes read for progress.
import type { Readable } from 'node:stream';

/**
 * Yields runs of whole lines as raw bytes: each chunk ends just before a `\n` (which is dropped),
 * so UTF-8 decoded per chunk is never broken mid-character; a final line without a newline is
 * its own chunk. A yielded buffer is only valid until the next one is requested.
 */
export async function* readLineChunks(input: Readable, onBytes?: (total: number) => void): AsyncGenerator<Buffer> {
  let rest: Buffer | null = null;
  let bytes = 0;
  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    bytes += buf.length;
    const data: Buffer = rest ? Buffer.concat([rest, buf]) : buf;
    const last = data.lastIndexOf(10);
    if (last < 0) {
      rest = data;
    } else {
      rest = last + 1 < data.length ? Buffer.from(data.subarray(last + 1)) : null;
      onBytes?.(bytes);
      yield data.subarray(0, last);
    }
  }
  if (rest && rest.length > 0) yield rest;
  onBytes?.(bytes);
}

/** The lines of one chunk of readLineChunks, without their terminator (`\n` or `\r\n`). */
export function splitLines(text: string): string[] {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) if (lines[i].endsWith('\r')) lines[i] = lines[i].slice(0, -1);
  return lines;
}

/** Yields arrays of lines (see readLineChunks) to keep per-line overhead off the hot path. */
export async function* readLineBatches(input: Readable, onBytes?: (total: number) => void): AsyncGenerator<string[]> {
  for await (const chunk of readLineChunks(input, onBytes)) yield splitLines(chunk.toString('utf8'));
}
