// The collection spools in a backup (docs/decisions/backups.md): of each spool, the records past its
// loader's checkpoint (acknowledged with a 202, not yet in the events store), copied at the positions
// they had, so that the checkpoint in the copy of the events store still points between the same two
// records: a server started on the restored dir takes the spool over and loads each of them once. Each
// segment is copied up to the end of its last whole record (never the preallocated zeros after it, nor
// a record the writer has not finished); segments wholly before the checkpoint are left out. Only the
// files are read: the running server keeps appending meanwhile, and what it appends after the copy is
// after the backup.
import fs from 'node:fs';
import path from 'node:path';
import type { SpoolCopied } from '../../ports/backup.js';
import { listSpools } from './spool-root.js';
import { decodeRecords, offsetOf, segmentFile, segmentNumber, segmentOf } from './spool-format.js';

/** What a read takes of a segment at a time (as the spool's own reads). */
const READ_BYTES = 8 << 20;
/** The files of a spool that travel with its segments: its identity and what freshness knew of its sites. */
const SPOOL_FILES = ['ID', 'sites.json'];

interface SegmentScan {
  segment: number;
  /** bytes from the segment's start to the end of its last whole record */
  end: number;
  /** whole records past the position the scan started from */
  records: number;
}

/**
 * Copies every spool under `root` (`<data dir>/spool`) into `dest`, each from `checkpointOf(its id)`
 * on; `copied` is called after each file. Returns per spool id its checkpoint and the records copied past it.
 */
export async function copySpools(
  root: string,
  dest: string,
  checkpointOf: (spoolId: string) => Promise<number | null>,
  copied: () => void = () => undefined,
): Promise<Record<string, SpoolCopied>> {
  const out: Record<string, SpoolCopied> = {};
  for (const dir of await listSpools(root)) {
    const id = await spoolIdOf(dir);
    if (id === null) continue; // a spool being made: nothing in it was acknowledged
    const checkpoint = await checkpointOf(id);
    const target = path.join(dest, path.basename(dir));
    await fs.promises.mkdir(target, { recursive: true, mode: 0o700 });
    let records = 0;
    for (const s of await scanSpool(dir, checkpoint ?? 0)) {
      await copyPrefix(path.join(dir, segmentFile(s.segment)), path.join(target, segmentFile(s.segment)), s.end);
      records += s.records;
      copied();
    }
    for (const name of SPOOL_FILES) {
      const there = await fs.promises.copyFile(path.join(dir, name), path.join(target, name), fs.constants.COPYFILE_EXCL).then(
        () => true,
        (err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') return false;
          throw err;
        },
      );
      if (there) copied();
    }
    out[id] = { checkpoint, records };
  }
  return out;
}

/** Per spool id under `root`, the whole records past its checkpoint (`checkpoints`; none: every record). */
export async function countSpoolRecords(root: string, checkpoints: Record<string, number>): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const dir of await listSpools(root)) {
    const id = await spoolIdOf(dir);
    if (id === null) continue;
    out[id] = (await scanSpool(dir, checkpoints[id] ?? 0)).reduce((n, s) => n + s.records, 0);
  }
  return out;
}

async function spoolIdOf(dir: string): Promise<string | null> {
  const id = await fs.promises.readFile(path.join(dir, 'ID'), 'utf8').then(
    (t) => t.trim(),
    () => null,
  );
  return id !== null && id === path.basename(dir) ? id : null;
}

/** The segments of the spool in `dir` that hold `from` or follow it, each with where its whole records end. */
async function scanSpool(dir: string, from: number): Promise<SegmentScan[]> {
  const segments = (await fs.promises.readdir(dir))
    .map(segmentNumber)
    .filter((n): n is number => n !== null && n >= segmentOf(from))
    .sort((a, b) => a - b);
  const out: SegmentScan[] = [];
  for (const segment of segments) {
    const start = segment === segmentOf(from) ? offsetOf(from) : 0;
    out.push({ segment, ...(await wholeRecords(path.join(dir, segmentFile(segment)), start)) });
  }
  return out;
}

/**
 * From byte `start` of a segment (a record boundary): where its run of whole records ends (a torn
 * record, the zeros of its unused tail, or the end of the file), and how many records that run holds.
 */
async function wholeRecords(file: string, start: number): Promise<{ end: number; records: number }> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    let at = start;
    let records = 0;
    while (at < size) {
      const want = Math.min(READ_BYTES, size - at);
      const buf = Buffer.alloc(want);
      const { bytesRead } = await fh.read(buf, 0, want, at);
      if (bytesRead === 0) break;
      // positions here are byte offsets in the segment: decodeRecords counts from `at`
      const { records: found, stop } = decodeRecords(buf.subarray(0, bytesRead).toString('utf8'), at);
      records += found.length;
      const toEnd = bytesRead === size - at;
      if (found.length) at = found[found.length - 1].end;
      if (stop === 'invalid' || toEnd) break;
      if (stop === 'incomplete' && found.length === 0)
        throw new Error(`collection spool ${file}: a record longer than ${READ_BYTES} bytes at ${at}`);
    }
    return { end: Math.min(at, size), records };
  } finally {
    await fh.close();
  }
}

/** Copies the first `bytes` of `src` to `dest` (a new file). */
async function copyPrefix(src: string, dest: string, bytes: number): Promise<void> {
  const from = await fs.promises.open(src, 'r');
  try {
    const to = await fs.promises.open(dest, 'wx', 0o600);
    try {
      const buf = Buffer.alloc(Math.min(READ_BYTES, Math.max(bytes, 1)));
      for (let at = 0; at < bytes; ) {
        const { bytesRead } = await from.read(buf, 0, Math.min(buf.length, bytes - at), at);
        if (bytesRead === 0) throw new Error(`collection spool ${src} ended at ${at} bytes, before ${bytes}`);
        await to.write(buf, 0, bytesRead, at);
        at += bytesRead;
      }
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
}
