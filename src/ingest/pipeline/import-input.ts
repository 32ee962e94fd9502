// What `footfall import` reads: a file or stdin, plain or gzip-compressed (told by its first bytes,
// 1f 8b, never by its name, so rotated logs such as access.log.1.gz and piped input both work), and
// looked at before anything is opened: an input of the other import's format, a binary file or
// another compression fails once, with the command to run instead, rather than every line failing
// with the same reason.
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { parseAccessLogLine } from '../parse/access-log.js';
import type { LineFormat } from './line-processor.js';
import { InputError } from '../../domain/input-error.js';

export class ImportInputError extends InputError {
  constructor(message: string) {
    super('INVALID_ARGUMENTS', message);
  }
}

/** Bytes of decompressed text looked at before the import starts. */
const SNIFF_BYTES = 64 << 10;
/** Lines of it the format is judged by. */
const SNIFF_LINES = 20;

/** Compressions footfall does not read, by their magic bytes, and the command that undoes each. */
const OTHER_COMPRESSIONS: { name: string; magic: number[]; undo: string }[] = [
  { name: 'bzip2', magic: [0x42, 0x5a, 0x68], undo: 'bzcat' },
  { name: 'xz', magic: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], undo: 'xzcat' },
  { name: 'zstd', magic: [0x28, 0xb5, 0x2f, 0xfd], undo: 'zstdcat' },
  { name: 'zip', magic: [0x50, 0x4b, 0x03, 0x04], undo: 'unzip -p' },
];

export interface InputOptions {
  /** the file as the user named it, or '-' for stdin */
  source: string;
  format: LineFormat;
  /** --site, for the hints */
  site?: string;
  /** bytes read from the source so far (compressed bytes for a gzip file): the progress bar's */
  onBytes?: (total: number) => void;
}

/** The input's text, decompressed when it is gzip, once its first lines are known to fit the import. */
export async function openImportInput(raw: Readable, opts: InputOptions): Promise<Readable> {
  const name = opts.source === '-' ? 'the input' : opts.source;
  let bytes = 0;
  const counted = (async function* () {
    for await (const chunk of raw as AsyncIterable<Buffer | string>) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      bytes += buf.length;
      opts.onBytes?.(bytes);
      yield buf;
    }
  })();
  const rawHead = await takeHead(counted, 8);
  const other = OTHER_COMPRESSIONS.find((c) => c.magic.every((b, i) => rawHead.head[i] === b));
  if (other) {
    raw.destroy();
    throw new ImportInputError(
      `${name} is ${other.name}-compressed; footfall reads plain and gzip files: decompress it, e.g. \`${other.undo} FILE | ${command(opts, '-')}\``,
    );
  }
  const gzip = rawHead.head[0] === 0x1f && rawHead.head[1] === 0x8b;
  const bytesIn = prepend(rawHead.head, rawHead.rest);
  const { head, rest } = await takeHead(gzip ? gunzipped(bytesIn, name) : bytesIn, SNIFF_BYTES);
  try {
    checkText(head, name);
    checkFormat(head, opts, name);
  } catch (err) {
    raw.destroy();
    throw err;
  }
  return Readable.from(prepend(head, rest), { objectMode: false });
}

/** `first`, then what `rest` yields. */
async function* prepend(first: Buffer, rest: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  if (first.length) yield first;
  for (let r = await rest.next(); !r.done; r = await rest.next()) yield r.value;
}

/** At least `want` bytes from the start of `it` (fewer at its end), and an iterator of what follows. */
async function takeHead(it: AsyncIterator<Buffer>, want: number): Promise<{ head: Buffer; rest: AsyncIterator<Buffer> }> {
  const parts: Buffer[] = [];
  let size = 0;
  while (size < want) {
    const r = await it.next();
    if (r.done) break;
    parts.push(r.value);
    size += r.value.length;
  }
  return { head: Buffer.concat(parts), rest: it };
}

/** The gzip stream's text; a damaged or cut-short file fails the import (nothing of it is stored). */
function gunzipped(compressed: AsyncGenerator<Buffer>, name: string): AsyncIterator<Buffer> {
  const source = Readable.from(compressed);
  const gunzip = zlib.createGunzip();
  source.on('error', (err) => gunzip.destroy(err));
  source.pipe(gunzip);
  return (async function* () {
    try {
      for await (const chunk of gunzip as AsyncIterable<Buffer>) yield chunk;
    } catch (err) {
      if ((err as { code?: string }).code?.startsWith('Z_'))
        throw new ImportInputError(
          `${name} starts as gzip but its data is damaged or cut short (${(err as Error).message}); nothing was imported`,
        );
      throw err;
    }
  })();
}

/** NUL bytes, or many characters no text file holds: an image, a database, an archive. */
function checkText(head: Buffer, name: string): void {
  if (head.length === 0) return;
  const sample = head.toString('utf8');
  let odd = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    if (c === 0) {
      odd = sample.length;
      break;
    }
    if (c === 0xfffd || (c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 27)) odd++;
  }
  if (odd > sample.length * 0.05)
    throw new ImportInputError(
      `${name} is not a text file (it holds binary data): footfall imports NDJSON events (footfall import events) and access logs (footfall import access-log), plain or gzip-compressed`,
    );
}

/** The other import's lines, and none of this one's: say which command reads them. */
function checkFormat(head: Buffer, opts: InputOptions, name: string): void {
  let text = head.toString('utf8');
  if (head.length >= SNIFF_BYTES) text = text.slice(0, Math.max(0, text.lastIndexOf('\n')));
  const lines = text
    .split('\n')
    .map((l) => l.replace(/\r$/, ''))
    .filter((l) => l.trim() !== '')
    .slice(0, SNIFF_LINES);
  if (lines.length === 0) return;
  const most = (n: number) => n * 2 > lines.length;
  if (opts.format.kind === 'events') {
    if (lines.some(isJsonObject)) return;
    const combined = lines.filter((l) => !('error' in parseAccessLogLine(l, 'combined'))).length;
    const common = lines.filter((l) => !('error' in parseAccessLogLine(l, 'common'))).length;
    if (!most(common)) return;
    const format = most(combined) ? 'combined' : 'common';
    throw new ImportInputError(
      `${name} looks like an access log (${format} format), not NDJSON events: import it with \`${command({ ...opts, format: { kind: 'access-log', format } }, opts.source)}\``,
    );
  }
  const format = opts.format.format;
  if (lines.some((l) => !('error' in parseAccessLogLine(l, format)))) return;
  if (most(lines.filter(isJsonObject).length))
    throw new ImportInputError(
      `${name} holds NDJSON events, not access-log lines: import it with \`${command({ ...opts, format: { kind: 'events' } }, opts.source)}\``,
    );
}

function isJsonObject(line: string): boolean {
  if (line.trimStart()[0] !== '{') return false;
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

/** The command line that imports `source` in `opts.format`. */
function command(opts: Pick<InputOptions, 'format' | 'site'>, source: string): string {
  const file = /^[\w./@:+-]+$/.test(source) ? source : `'${source.replace(/'/g, `'\\''`)}'`;
  if (opts.format.kind === 'events') return `footfall import events ${file}${opts.site ? ` --site ${opts.site}` : ''}`;
  const fmt = opts.format.format === 'common' ? ' --format common' : '';
  return `footfall import access-log ${file} --site ${opts.site ?? 'SITE_ID'}${fmt}`;
}
