// The spool's on-disk format: segment files of records, one per line, each with a checksum, and
// positions (segment number and byte offset) packed into one number a store can keep as a checkpoint.
import zlib from 'node:zlib';

/** A record is an event row (its wire encoding) or an engagement row (JSON). */
export type RecordKind = 'E' | 'G';

/** Offsets stay below this, so a segment number and an offset pack into one safe integer. */
export const SEGMENT_SPAN = 2 ** 32;
/** Segment numbers stay below this (2^53 / 2^32). */
export const MAX_SEGMENT = 2 ** 21 - 1;

export function position(segment: number, offset: number): number {
  return segment * SEGMENT_SPAN + offset;
}

export function segmentOf(pos: number): number {
  return Math.floor(pos / SEGMENT_SPAN);
}

export function offsetOf(pos: number): number {
  return pos % SEGMENT_SPAN;
}

/** `000000000042.log` */
export function segmentFile(segment: number): string {
  return `${String(segment).padStart(12, '0')}.log`;
}

export function segmentNumber(file: string): number | null {
  const m = /^(\d{12})\.log$/.exec(file);
  return m ? Number(m[1]) : null;
}

// zlib.crc32 arrived in Node 20.15; older 20.x use the table below.
const nativeCrc = (zlib as { crc32?: (data: string | Uint8Array) => number }).crc32;
let table: Int32Array | null = null;

function crc32(text: string): number {
  if (nativeCrc) return nativeCrc(text);
  if (!table) {
    table = new Int32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c;
    }
  }
  const bytes = Buffer.from(text, 'utf8');
  let crc = -1;
  for (let i = 0; i < bytes.length; i++) crc = table[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

/** One line: 8 hex digits of the CRC-32 of the rest, the kind, the payload, a newline. */
export function encodeRecord(kind: RecordKind, payload: string): string {
  const body = kind + payload;
  return crc32(body).toString(16).padStart(8, '0') + body + '\n';
}

export interface SpoolRecord {
  kind: RecordKind;
  payload: string;
  /** position just past the record: where the next one starts */
  end: number;
}

/**
 * The whole records of `text` (which starts at `startPos`, a record boundary). `stop` says why it
 * ended: `end` (all of `text` read, or `max` records), `incomplete` (a last line without its newline:
 * the rest may follow, or a write was cut short), `invalid` (a line that fails its checksum, or the
 * zeros of a segment's unused tail: nothing after it was ever acknowledged).
 */
export function decodeRecords(
  text: string,
  startPos: number,
  max = Infinity,
): { records: SpoolRecord[]; stop: 'end' | 'incomplete' | 'invalid' } {
  const records: SpoolRecord[] = [];
  let at = 0;
  // byte offsets, not string indexes: payloads may hold any UTF-8
  let pos = startPos;
  while (at < text.length && records.length < max) {
    if (!isHexDigit(text.charCodeAt(at))) return { records, stop: 'invalid' };
    const nl = text.indexOf('\n', at);
    if (nl === -1) return { records, stop: 'incomplete' };
    const line = text.slice(at, nl);
    const body = line.slice(8);
    const kind = body[0];
    if (
      line.length < 10 ||
      (kind !== 'E' && kind !== 'G') ||
      !/^[0-9a-f]{8}$/.test(line.slice(0, 8)) ||
      parseInt(line.slice(0, 8), 16) !== crc32(body)
    )
      return { records, stop: 'invalid' };
    pos += Buffer.byteLength(line, 'utf8') + 1;
    records.push({ kind, payload: body.slice(1), end: pos });
    at = nl + 1;
  }
  return { records, stop: 'end' };
}

function isHexDigit(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 102);
}
