// The spool's appends (spool.ts): group commit into preallocated segments. The records that arrive in
// one turn of the event loop go out as one write, and up to `maxInFlight` writes are under way side
// by side (the disk takes concurrent syncs about as fast as one), so a request waits for its own
// group's sync, not for the one before it to end first. Each write is durable when it returns (the
// segment is open with O_DSYNC: one system call, one trip to the thread pool, instead of a write and
// an fdatasync). Groups are acknowledged strictly in order: a group whose write is done waits for
// every earlier one, so an acknowledged record never follows bytes that might be torn by a crash
// (reading stops at the first torn record; nothing after it was ever acknowledged).
import fs from 'node:fs';
import path from 'node:path';
import { MAX_SEGMENT, position, segmentFile } from './spool-format.js';

/** A record waiting to be written (null line: a barrier), and who waits for it. */
export interface Pending {
  line: string | null;
  resolve(end: number): void;
  reject(err: unknown): void;
}

/** One write under way: its records and where they go. */
interface Flight {
  batch: Pending[];
  offset: number;
  bytes: number;
  state: 'writing' | 'done' | 'failed';
}

/** Writes whose data is durable when they return, where the platform has it (not Windows). */
const O_DSYNC: number | undefined = fs.constants.O_DSYNC;

export class SegmentWriter {
  /** the records waiting for the next write */
  private queue: Pending[] = [];
  private scheduled = false;
  /** writes not yet acknowledged, oldest first */
  private flights: Flight[] = [];
  /** writes the file handle is still busy with (a failed group's successors included) */
  private io = 0;
  private idle: (() => void)[] = [];
  /** where the next write goes in the active segment */
  private reserved = 0;
  /** bytes of the active segment acknowledged (written and synced, with everything before them) */
  private size = 0;
  private rotating = false;
  private failed: unknown = null;
  /** the next segment, made ahead of time once the active one is half full */
  private nextSegment: Promise<fs.promises.FileHandle> | null = null;
  /** writes (each one sync) and the records they carried: records / writes is the group-commit factor */
  readonly stats = { writes: 0, records: 0 };

  constructor(
    private readonly dir: string,
    /** the active segment */
    private segment: number,
    private fh: fs.promises.FileHandle,
    private readonly segmentBytes: number,
    private readonly maxInFlight: number,
  ) {}

  get activeSegment(): number {
    return this.segment;
  }

  /** Bytes of the active segment that are durable and acknowledged. */
  get durableSize(): number {
    return this.size;
  }

  get durableEnd(): number {
    return position(this.segment, this.size);
  }

  enqueue(p: Pending): void {
    if (this.failed) {
      p.reject(this.failed);
      return;
    }
    this.queue.push(p);
    if (this.scheduled) return;
    this.scheduled = true;
    // After the poll phase: every request read in this turn has had its say and goes in one write.
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  /** Resolves once nothing is queued or being written. */
  drained(): Promise<void> {
    if (this.queue.length === 0 && this.io === 0 && !this.rotating) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Closes the active segment and removes the one made ahead (unused: all zeros). Call once drained. */
  async close(): Promise<void> {
    await this.fh.close().catch(() => undefined);
    if (this.nextSegment) {
      await (await this.nextSegment.catch(() => null))?.close();
      await fs.promises.rm(path.join(this.dir, segmentFile(this.segment + 1)), { force: true });
    }
  }

  private pump(): void {
    while (this.queue.length && !this.failed && !this.rotating && this.flights.length < this.maxInFlight) {
      let text = '';
      for (const p of this.queue) if (p.line !== null) text += p.line;
      if (text.length === 0) {
        // barriers alone: answered with the write under way (or at once), as an append would be
        const batch = this.queue;
        this.queue = [];
        const last = this.flights.at(-1);
        if (last) last.batch.push(...batch);
        else for (const p of batch) p.resolve(this.durableEnd);
        continue;
      }
      const buf = Buffer.from(text, 'utf8');
      if (this.reserved > 0 && this.reserved + buf.length > this.segmentBytes) {
        // the next segment takes it, once every write into this one is acknowledged
        if (this.flights.length === 0) this.rotate();
        return;
      }
      if (this.nextSegment === null && this.reserved + buf.length > this.segmentBytes / 2) this.prepareNext();
      const flight: Flight = { batch: this.queue, offset: this.reserved, bytes: buf.length, state: 'writing' };
      this.queue = [];
      this.reserved += buf.length;
      this.flights.push(flight);
      this.io++;
      this.writeAt(buf, flight.offset).then(
        () => this.written(flight),
        (err: unknown) => this.writeFailed(flight, err),
      );
    }
    this.checkIdle();
  }

  private async writeAt(buf: Buffer, offset: number): Promise<void> {
    let done = 0;
    while (done < buf.length) {
      const { bytesWritten } = await this.fh.write(buf, done, buf.length - done, offset + done);
      done += bytesWritten;
    }
    if (O_DSYNC === undefined) await this.fh.datasync();
  }

  private written(flight: Flight): void {
    this.io--;
    if (flight.state === 'writing') flight.state = 'done';
    // acknowledge, in order, every group whose write and every earlier one are done
    while (this.flights.length && this.flights[0].state === 'done') {
      const f = this.flights.shift()!;
      this.stats.writes++;
      let at = f.offset;
      const ends: number[] = [];
      for (const p of f.batch) {
        if (p.line !== null) {
          at += Buffer.byteLength(p.line, 'utf8');
          this.stats.records++;
        }
        ends.push(position(this.segment, p.line !== null ? at : f.offset + f.bytes));
      }
      this.size = f.offset + f.bytes;
      for (let i = 0; i < f.batch.length; i++) f.batch[i].resolve(ends[i]);
    }
    this.pump();
  }

  /**
   * A failed write may have left part of its group in the file: nothing after it is acknowledged
   * (the loader would stop at the torn record), even a later group whose own write succeeded, and
   * every later append fails fast. Earlier groups are still acknowledged as their writes end.
   */
  private writeFailed(flight: Flight, err: unknown): void {
    this.io--;
    this.failed ??= err;
    const at = this.flights.indexOf(flight);
    const dropped = at === -1 ? [] : this.flights.splice(at);
    for (const f of dropped) {
      f.state = 'failed';
      for (const p of f.batch) p.reject(err);
    }
    for (const p of this.queue) p.reject(err);
    this.queue = [];
    this.checkIdle();
  }

  private checkIdle(): void {
    if (this.io > 0 || this.rotating) return;
    if (this.queue.length && !this.failed) return;
    for (const resolve of this.idle.splice(0)) resolve();
  }

  private prepareNext(): void {
    if (this.segment >= MAX_SEGMENT) return;
    this.nextSegment = createSegment(this.dir, this.segment + 1, this.segmentBytes);
    this.nextSegment.catch(() => undefined); // rotate() reports it
  }

  private rotate(): void {
    this.rotating = true;
    void (async () => {
      if (this.segment >= MAX_SEGMENT) throw new Error('the collection spool ran out of segment numbers');
      if (this.nextSegment === null) this.prepareNext();
      const pending = this.nextSegment!;
      this.nextSegment = null;
      const next = await pending;
      await this.fh.close();
      this.fh = next;
      this.segment += 1;
      this.size = 0;
      this.reserved = 0;
    })().then(
      () => {
        this.rotating = false;
        this.pump();
      },
      (err: unknown) => {
        this.rotating = false;
        this.failed ??= err;
        for (const p of this.queue) p.reject(err);
        this.queue = [];
        this.checkIdle();
      },
    );
  }
}

/**
 * A segment of `bytes` zeros, and its directory entry, durable before any record in it is
 * acknowledged; returned open for appends (O_DSYNC where there is one).
 */
export async function createSegment(dir: string, segment: number, bytes: number): Promise<fs.promises.FileHandle> {
  const file = path.join(dir, segmentFile(segment));
  const fh = await fs.promises.open(file, 'wx');
  try {
    const zeros = Buffer.alloc(Math.min(bytes, 1 << 20));
    for (let at = 0; at < bytes; at += zeros.length) await fh.write(zeros, 0, Math.min(zeros.length, bytes - at), at);
    await fh.sync();
    await syncDir(dir);
    if (O_DSYNC === undefined) return fh;
    const appending = await fs.promises.open(file, fs.constants.O_RDWR | O_DSYNC);
    await fh.close();
    return appending;
  } catch (err) {
    await fh.close().catch(() => undefined);
    await fs.promises.rm(file, { force: true });
    throw err;
  }
}

/** Makes a directory's entries (files made, renamed, removed) durable. */
export async function syncDir(dir: string): Promise<void> {
  const d = await fs.promises.open(dir, 'r');
  try {
    await d.sync();
  } finally {
    await d.close();
  }
}
