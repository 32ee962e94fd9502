// The collection spool: group commit, positions across segments, a torn tail from a crash skipped,
// one process per spool (a lock the kernel drops with its holder), loaded segments deleted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Spool, SpoolLockedError } from '../../../src/ingest/collect/spool.js';
import { decodeRecords, encodeRecord, position, segmentFile } from '../../../src/ingest/collect/spool-format.js';
import { until } from '../../helpers/until.js';

const CHILD = fileURLToPath(new URL('./fixtures/spool-child.ts', import.meta.url));
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-spool-'));

async function readAll(spool: Spool, from: number, max = 1000): Promise<{ payloads: string[]; next: number }> {
  const payloads: string[] = [];
  let at = from;
  for (;;) {
    const { records, next } = await spool.read(at, max);
    payloads.push(...records.map((r) => r.kind + r.payload));
    if (next === at) return { payloads, next };
    at = next;
  }
}

test('appends that arrive together share one write and one fdatasync (group commit), each resolved with its own end', async () => {
  const dir = tmp();
  const spool = await Spool.open(dir);
  try {
    const ends = await Promise.all(Array.from({ length: 200 }, (_, i) => spool.append('E', `["e${i}"]`)));
    assert.equal(spool.stats.records, 200);
    assert.ok(spool.stats.writes < 20, `${spool.stats.writes} writes for 200 records`);
    assert.deepEqual(
      [...ends].sort((a, b) => a - b),
      ends,
      'ends follow the order of the appends',
    );
    assert.equal(new Set(ends).size, 200);
    assert.equal(ends.at(-1), spool.durableEnd);
    const { payloads } = await readAll(spool, await spool.firstPosition());
    assert.deepEqual(
      payloads,
      Array.from({ length: 200 }, (_, i) => `E["e${i}"]`),
    );
    // A record read back ends where its append said it did.
    const { records } = await spool.read(await spool.firstPosition(), 3);
    assert.deepEqual(
      records.map((r) => r.end),
      ends.slice(0, 3),
    );
  } finally {
    await spool.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('segments are written full of zeros before use (an fdatasync then flushes data only)', async () => {
  const dir = tmp();
  const spool = await Spool.open(dir, { segmentBytes: 4096 });
  try {
    const active = path.join(dir, segmentFile(1));
    assert.equal(fs.statSync(active).size, 4096);
    await spool.append('E', '"x"'.repeat(700)); // past half: the next segment is made ahead
    assert.equal(fs.statSync(active).size, 4096, 'writes do not grow the file');
    await until(() => fs.existsSync(path.join(dir, segmentFile(2))), 'the next segment is made ahead');
    await spool.append('E', '"y"'.repeat(700));
    assert.equal(fs.statSync(path.join(dir, segmentFile(2))).size, 4096);
    assert.deepEqual((await readAll(spool, await spool.firstPosition())).payloads.length, 2);
  } finally {
    await spool.close();
  }
  assert.deepEqual(
    fs.readdirSync(dir).filter((f) => f.endsWith('.log')),
    [segmentFile(1), segmentFile(2)],
    'an unused segment made ahead is removed at close',
  );
  fs.rmSync(dir, { recursive: true, force: true });
});

test('records cross segments in order; each start writes a new segment; release deletes what was loaded', async () => {
  const dir = tmp();
  let spool = await Spool.open(dir, { segmentBytes: 200 });
  const first = await spool.firstPosition();
  for (let i = 0; i < 20; i++) await spool.append(i % 3 ? 'E' : 'G', JSON.stringify({ i, pad: 'é'.repeat(10) }));
  const segments = fs.readdirSync(dir).filter((f) => f.endsWith('.log'));
  assert.ok(segments.length > 3, segments.join());
  await spool.close();

  spool = await Spool.open(dir, { segmentBytes: 200 });
  try {
    await spool.append('E', '"after restart"');
    const { payloads, next } = await readAll(spool, first, 4);
    assert.equal(payloads.length, 21);
    assert.equal(payloads[0], 'G{"i":0,"pad":"éééééééééé"}');
    assert.equal(payloads.at(-1), 'E"after restart"');
    assert.equal(next, spool.durableEnd);
    // A read stops at the end of a segment, and then stands at the start of the next one.
    const head = await spool.read(first, 10);
    const middle = head.next;
    const before = fs.readdirSync(dir).filter((f) => f.endsWith('.log'));
    await spool.release(middle);
    const left = fs.readdirSync(dir).filter((f) => f.endsWith('.log'));
    assert.deepEqual(left, before.slice(1), `the segment before the position is gone (${before} -> ${left})`);
    assert.equal((await readAll(spool, middle)).payloads.length, 21 - head.records.length, 'what follows the position is all still there');
    await spool.release(spool.durableEnd);
    assert.deepEqual(fs.readdirSync(dir).filter((f) => f.endsWith('.log')).length, 1, 'only the active segment stays');
  } finally {
    await spool.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a record torn by a crash (never acknowledged) ends its segment; reading goes on with the next one', async () => {
  const dir = tmp();
  let spool = await Spool.open(dir);
  const first = await spool.firstPosition();
  await spool.append('E', '"one"');
  await spool.append('E', '"two"');
  await spool.close();
  // What a crash mid-write leaves: half a record, or bytes that were never synced.
  const seg = path.join(dir, segmentFile(1));
  const third = encodeRecord('E', '"three"');
  fs.appendFileSync(seg, third.slice(0, 9));
  spool = await Spool.open(dir);
  await spool.append('E', '"four"');
  await spool.close();
  fs.appendFileSync(
    path.join(dir, segmentFile(2)),
    '\0\0\0\0\0\0\0\0\0\0\n' + encodeRecord('E', '"not acknowledged"').replace('"not', '"NOT'),
  );
  spool = await Spool.open(dir);
  try {
    await spool.append('E', '"five"');
    assert.deepEqual((await readAll(spool, first)).payloads, ['E"one"', 'E"two"', 'E"four"', 'E"five"']);
  } finally {
    await spool.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * Holds back (or fails) chosen writes of every FileHandle of this process: `plan(n)` says what the
 * n-th write (1-based) does. Restored by the returned function.
 */
async function interceptWrites(
  dir: string,
  plan: (n: number) => 'hold' | 'fail' | 'go',
): Promise<{ release(): void; writes(): number; done(): number; restore(): void }> {
  const probe = await fs.promises.open(path.join(dir, 'probe'), 'w');
  const proto = Object.getPrototypeOf(probe) as { write: (...args: unknown[]) => Promise<unknown> };
  await probe.close();
  const original = proto.write;
  const held: (() => void)[] = [];
  let n = 0;
  let returned = 0;
  proto.write = function (this: unknown, ...args: unknown[]) {
    const what = plan(++n);
    if (what === 'fail') return Promise.reject(Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' }));
    const write =
      what === 'hold' ? new Promise<void>((r) => held.push(r)).then(() => original.apply(this, args)) : original.apply(this, args);
    return write.then((r) => (returned++, r));
  };
  return {
    release: () => {
      for (const r of held.splice(0)) r();
    },
    writes: () => n,
    done: () => returned,
    restore: () => void (proto.write = original),
  };
}

test('groups written side by side are acknowledged in order: a group whose write is done waits for every earlier one', async () => {
  const dir = tmp();
  const spool = await Spool.open(dir, { writesInFlight: 2 });
  const io = await interceptWrites(dir, (n) => (n === 1 ? 'hold' : 'go'));
  try {
    const acked: string[] = [];
    const a = spool.append('E', '"a"').then(() => acked.push('a'));
    await until(() => io.writes() === 1, "a's write has started (and is held)");
    const b = spool.append('E', '"b"').then(() => acked.push('b'));
    await until(() => io.writes() === 2, 'the second group did not wait for the first to start its write');
    await until(() => io.done() === 1, "b's write has returned");
    assert.deepEqual(acked, [], 'b is on disk, but not acknowledged before a');
    io.release();
    await Promise.all([a, b]);
    assert.deepEqual(acked, ['a', 'b']);
    assert.deepEqual((await readAll(spool, await spool.firstPosition())).payloads, ['E"a"', 'E"b"']);
  } finally {
    io.restore();
    await spool.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a failed write fails its group and every later one, written or not; earlier groups are still acknowledged', async () => {
  const dir = tmp();
  const spool = await Spool.open(dir, { writesInFlight: 3 });
  const io = await interceptWrites(dir, (n) => (n === 1 ? 'hold' : n === 2 ? 'fail' : 'go'));
  try {
    const a = spool.append('E', '"a"');
    await until(() => io.writes() === 1, "a's write has started (and is held)");
    const b = spool.append('E', '"b"');
    await assert.rejects(b, /EIO/);
    const c = spool.append('E', '"c"'); // after the gap b left: never acknowledged
    await assert.rejects(c, /EIO/);
    await assert.rejects(spool.append('E', '"d"'), /EIO/, 'later appends fail fast');
    io.release();
    const end = await a;
    assert.equal(end, spool.durableEnd);
    assert.deepEqual((await readAll(spool, await spool.firstPosition())).payloads, ['E"a"']);
  } finally {
    io.restore();
    await spool.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a checksum tells a damaged record from a whole one', () => {
  const good = encodeRecord('G', '{"a":1}');
  assert.equal(decodeRecords(good + good, position(1, 0)).records.length, 2);
  const bad = good.replace('"a"', '"b"');
  const r = decodeRecords(good + bad + good, position(1, 0));
  assert.deepEqual([r.records.length, r.stop], [1, 'invalid']);
  assert.equal(r.records[0].end, position(1, Buffer.byteLength(good)));
  assert.equal(decodeRecords(good + good.slice(0, 12), position(1, 0)).stop, 'incomplete');
  assert.equal(decodeRecords(good + '\0'.repeat(64), position(1, 0)).stop, 'invalid', 'the zeros of an unused tail');
});

test('one process per spool: a live holder refuses a second open, naming it; its lock dies with it (kill -9)', async () => {
  const dir = tmp();
  const spool = await Spool.open(dir);
  try {
    await assert.rejects(Spool.open(dir), SpoolLockedError, 'a second open in this process');
  } finally {
    await spool.close();
  }
  const holder = spawn(process.execPath, ['--import', 'tsx', CHILD, 'hold', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const [line] = (await once(holder.stdout!, 'data')) as [Buffer];
    assert.equal(JSON.parse(String(line)).id, spool.id, 'the identity survives');
    await assert.rejects(Spool.open(dir), (err: Error) => err instanceof SpoolLockedError && err.message.includes(`process ${holder.pid}`));
    holder.kill('SIGKILL');
    await once(holder, 'exit');
    const again = await Spool.open(dir);
    assert.equal(again.id, spool.id);
    await again.close();
  } finally {
    holder.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
