// The collection spool: an append-only log in a directory of its own. append() resolves once its
// record is on disk: the records of one turn of the event loop go in one synced write, several such
// writes under way at once, acknowledged in order (group commit: segment-writer.ts), so a 202 costs
// a share of one sync, not one each. Segments are written full of zeros and synced before their first
// record (the next one while the current fills up), so a sync only has data to flush, never a new
// file size. One process
// holds a spool (SPOOL.lock, a ProcessLock: released by the kernel when the process dies); each
// open writes a new segment, and the loader reads every segment from its checkpoint on
// (spool-format.ts positions), then deletes those it has passed. The zeros after a segment's last
// record read as a torn record: reading goes on at the next segment. A spool opened read-only is a
// dead process's, taken over to be loaded and removed (spool-root.ts): nothing is appended to it.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  decodeRecords,
  encodeRecord,
  offsetOf,
  position,
  segmentFile,
  segmentNumber,
  segmentOf,
  type RecordKind,
  type SpoolRecord,
} from './spool-format.js';
import { ProcessLock } from './process-lock.js';
import { createSegment, SegmentWriter, syncDir, type Pending } from './segment-writer.js';

export { syncDir };

/** The file whose ProcessLock a spool's holder keeps. */
export const SPOOL_LOCK = 'SPOOL.lock';

export class SpoolLockedError extends Error {
  constructor(dir: string, pid: number | null) {
    super(
      `the collection spool ${dir} is in use by ${pid === null ? 'another process' : `process ${pid}`}; each footfall serve keeps a spool of its own`,
    );
    this.name = 'SpoolLockedError';
  }
}

export interface SpoolOptions {
  /** the size of a segment (default 32 MiB): a new one is started when a write would not fit */
  segmentBytes?: number;
  /** bytes read from a segment at a time (default 8 MiB) */
  readBytes?: number;
  /** synced writes under way at once (default 2: more wake more threads on a busy machine for no gain) */
  writesInFlight?: number;
}

export interface OpenSpoolOptions extends SpoolOptions {
  /** the spool's lock, already taken by the caller (spool-root.ts); else open() takes it */
  lock?: ProcessLock;
  /** a dead process's spool, to be loaded and removed: no segment is made, appends fail */
  readOnly?: boolean;
}

const DEFAULT_SEGMENT_BYTES = 32 << 20;
const DEFAULT_READ_BYTES = 8 << 20;
const DEFAULT_WRITES_IN_FLIGHT = 2;

/** Spools opened by this process: a second open of the same directory would take over its lock. */
const openHere = new Set<string>();

export class Spool {
  /** the appends; null: a read-only spool */
  private readonly writer: SegmentWriter | null;
  /** of a read-only spool: the number after its last segment (no file) */
  private readonly endSegment: number;
  private closed = false;
  private readonly readBytes: number;

  private constructor(
    readonly dir: string,
    /** this spool's identity (the store keeps the loader's checkpoint under it) */
    readonly id: string,
    segment: number,
    fh: fs.promises.FileHandle | null,
    private readonly lock: ProcessLock,
    opts: SpoolOptions,
  ) {
    this.endSegment = segment;
    this.writer =
      fh === null
        ? null
        : new SegmentWriter(dir, segment, fh, opts.segmentBytes ?? DEFAULT_SEGMENT_BYTES, opts.writesInFlight ?? DEFAULT_WRITES_IN_FLIGHT);
    this.readBytes = opts.readBytes ?? DEFAULT_READ_BYTES;
  }

  /** writes (each one sync) and the records they carried: records / writes is the group-commit factor */
  get stats(): { writes: number; records: number } {
    return this.writer?.stats ?? { writes: 0, records: 0 };
  }

  /** the active segment (of a read-only spool, the number after its last one) */
  private get segment(): number {
    return this.writer?.activeSegment ?? this.endSegment;
  }

  /** bytes of the active segment acknowledged */
  private get size(): number {
    return this.writer?.durableSize ?? 0;
  }

  static async open(dir: string, opts: OpenSpoolOptions = {}): Promise<Spool> {
    const real = path.resolve(dir);
    if (openHere.has(real)) {
      opts.lock?.release();
      throw new SpoolLockedError(real, process.pid);
    }
    let lock = opts.lock;
    if (!lock) {
      await fs.promises.mkdir(real, { recursive: true });
      const file = path.join(real, SPOOL_LOCK);
      lock = ProcessLock.tryTake(file, { create: true }) ?? undefined;
      if (!lock) throw new SpoolLockedError(real, ProcessLock.holderOf(file));
    }
    openHere.add(real);
    try {
      const id = await spoolId(real);
      const last = (await listSegments(real)).at(-1) ?? 0;
      const fh = opts.readOnly ? null : await createSegment(real, last + 1, opts.segmentBytes ?? DEFAULT_SEGMENT_BYTES);
      return new Spool(real, id, last + 1, fh, lock, opts);
    } catch (err) {
      openHere.delete(real);
      lock.release();
      throw err;
    }
  }

  /** Where reading a read-only spool ends: past its last segment. */
  get endPosition(): number {
    return position(this.segment, 0);
  }

  /** The position past every record acknowledged so far. */
  get durableEnd(): number {
    return position(this.segment, this.size);
  }

  /** Where the oldest segment on disk starts (the loader's start without a checkpoint). */
  async firstPosition(): Promise<number> {
    const segs = await listSegments(this.dir);
    return position(segs[0] ?? this.segment, 0);
  }

  /** Appends a record; resolves with the position just past it once it is durable. */
  append(kind: RecordKind, payload: string): Promise<number> {
    const line = encodeRecord(kind, payload);
    return new Promise<number>((resolve, reject) => this.enqueue({ line, resolve, reject }));
  }

  /** Resolves after the next write + sync, with nothing of its own: an answer that takes as long as an append. */
  barrier(): Promise<void> {
    return new Promise<void>((resolve, reject) => this.enqueue({ line: null, resolve: () => resolve(), reject }));
  }

  private enqueue(p: Pending): void {
    if (this.closed) {
      p.reject(new Error('the collection spool is closed'));
      return;
    }
    if (this.writer === null) {
      p.reject(new Error('a spool taken over from another process is read-only'));
      return;
    }
    this.writer.enqueue(p);
  }

  /**
   * Up to `max` records from `from` (a record boundary), never past what is durable; `next` is where
   * to read on. A closed segment (of this run or an earlier one) may end in a record torn by a crash,
   * never acknowledged: reading skips it and goes on at the next segment.
   */
  async read(from: number, max: number): Promise<{ records: SpoolRecord[]; next: number }> {
    let at = from;
    for (;;) {
      const seg = segmentOf(at);
      if (seg > this.segment) return { records: [], next: at };
      const active = seg === this.segment;
      const file = path.join(this.dir, segmentFile(seg));
      const end = active ? this.size : await fileSize(file);
      const offset = offsetOf(at);
      if (end === null || offset >= end) {
        if (active) return { records: [], next: at };
        at = position(await this.segmentAfter(seg), 0);
        continue;
      }
      const want = Math.min(end - offset, this.readBytes);
      const { records, stop } = decodeRecords(await readText(file, offset, want), at, max);
      const toEnd = want === end - offset;
      // The segment's records end here: a record torn by a crash or the zeros of its unused tail
      // (invalid), a last line cut short, or the file's last byte.
      const ended = stop === 'invalid' || (toEnd && (stop === 'incomplete' || records.length < max));
      if (active && stop === 'invalid')
        throw new Error(`collection spool segment ${seg}: unreadable record at offset ${offsetOf(records.at(-1)?.end ?? at)}`);
      if (records.length === 0 && stop === 'incomplete' && want < end - offset)
        throw new Error(`collection spool segment ${seg}: a record longer than ${this.readBytes} bytes at offset ${offset}`);
      if (!active && ended) {
        const next = position(await this.segmentAfter(seg), 0);
        if (records.length) return { records, next };
        at = next;
        continue;
      }
      return { records, next: records.length ? records[records.length - 1].end : at };
    }
  }

  /** The first segment after `seg` on disk (the active one at most). */
  private async segmentAfter(seg: number): Promise<number> {
    return (await listSegments(this.dir)).find((s) => s > seg) ?? this.segment;
  }

  /** Deletes the closed segments wholly before `pos` (the loader has committed them). */
  async release(pos: number): Promise<void> {
    const upTo = Math.min(segmentOf(pos), this.segment);
    for (const s of await listSegments(this.dir)) if (s < upTo) await fs.promises.rm(path.join(this.dir, segmentFile(s)), { force: true });
  }

  /** Waits for the writes under way, then closes; later appends fail. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.writer) {
      await this.writer.drained();
      await this.writer.close();
    }
    this.lock.release();
    openHere.delete(this.dir);
  }

  /**
   * Removes a read-only spool the loader has wholly loaded, then lets go of its lock. The directory
   * is first renamed out of the way (one atomic step), so no process can take the lock of a spool
   * half deleted: a process that takes it afterwards finds no spool at its name.
   */
  async remove(): Promise<void> {
    if (this.writer !== null) throw new Error('only a spool taken over read-only is removed');
    const gone = path.join(path.dirname(this.dir), `${REMOVED_PREFIX}${path.basename(this.dir)}`);
    try {
      await fs.promises.rename(this.dir, gone);
      await fs.promises.rm(gone, { recursive: true, force: true });
    } finally {
      await this.close();
    }
  }
}

/** Spools being removed are renamed `.removed-<id>` first (spool-root.ts clears what a crash left). */
export const REMOVED_PREFIX = '.removed-';

async function listSegments(dir: string): Promise<number[]> {
  const out: number[] = [];
  for (const f of await fs.promises.readdir(dir)) {
    const n = segmentNumber(f);
    if (n !== null) out.push(n);
  }
  return out.sort((a, b) => a - b);
}

async function fileSize(file: string): Promise<number | null> {
  try {
    return (await fs.promises.stat(file)).size;
  } catch {
    return null;
  }
}

async function readText(file: string, offset: number, length: number): Promise<string> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const buf = Buffer.alloc(length);
    let done = 0;
    while (done < length) {
      const { bytesRead } = await fh.read(buf, done, length - done, offset + done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    return buf.subarray(0, done).toString('utf8');
  } finally {
    await fh.close();
  }
}

/** The spool's identity, made once and kept in the spool dir (its `ID` file). */
export async function spoolId(dir: string): Promise<string> {
  const file = path.join(dir, 'ID');
  try {
    const id = (await fs.promises.readFile(file, 'utf8')).trim();
    if (/^[a-z0-9]{8,64}$/.test(id)) return id;
  } catch {
    // first start
  }
  const id = randomBytes(12).toString('hex');
  const tmp = `${file}.${process.pid}.tmp`;
  const fh = await fs.promises.open(tmp, 'w');
  try {
    await fh.writeFile(id + '\n');
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fs.promises.rename(tmp, file);
  await syncDir(dir);
  return id;
}
