// Streams lines out of a file or stdin in bounded memory, reporting bytes read for progress.
import type { Readable } from 'node:stream';

/**
 * Yields lines without their terminator (`\n` or `\r\n`). UTF-8 is decoded per run of whole
 * lines, so a character split across two reads is never broken; a final line without a newline
 * is still yielded. Yields arrays of lines to keep per-line overhead off the hot path.
 */
export async function* readLineBatches(input: Readable, onBytes?: (total: number) => void): AsyncGenerator<string[]> {
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
      const lines = data.toString('utf8', 0, last).split('\n');
      for (let i = 0; i < lines.length; i++) if (lines[i].endsWith('\r')) lines[i] = lines[i].slice(0, -1);
      rest = last + 1 < data.length ? data.subarray(last + 1) : null;
      onBytes?.(bytes);
      yield lines;
    }
  }
  if (rest && rest.length > 0) {
    const line = rest.toString('utf8');
    yield [line.endsWith('\r') ? line.slice(0, -1) : line];
  }
  onBytes?.(bytes);
}
