// The loader's pace while events keep arriving: it rests after a load as long as that load took, so
// that commits (a large fixed cost each) leave the cores to the requests half the time, unless the
// rest would make the oldest waiting event miss readableWithinMs.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EventStore } from '../../../src/ports/event-store.js';
import { Loader, type LoaderOptions } from '../../../src/ingest/collect/loader.js';
import { Spool } from '../../../src/ingest/collect/spool.js';
import { fileStore } from './fixtures/file-store.js';
import { until } from '../../helpers/until.js';

/** Date and setTimeout on fake time (node:test's mock timers), from T0; the spool's I/O and setImmediate stay real. */
const T0 = Date.parse('2025-06-15T10:00:00.000Z');
function fakeTime(): void {
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: T0 });
}

const turn = () => new Promise((r) => setImmediate(r));

/** `fn` over a fresh spool in a temp dir; afterwards the loaders it hands to `stopLater` are stopped and all is removed. */
async function inSpool(fn: (spool: Spool, dir: string, stopLater: (l: Loader) => Loader) => Promise<void>): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-loader-'));
  const spool = await Spool.open(path.join(dir, 'spool'));
  const loaders: Loader[] = [];
  try {
    await fn(spool, dir, (l) => (loaders.push(l), l));
  } finally {
    for (const l of loaders) await l.stop();
    await spool.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

type Said = { details: Record<string, unknown>; message: string };

interface Paced {
  /** when each load began (the loader's own start of a load: its read of the spool) and how long it took, by its loadEnded */
  loads: { start: number; took: number }[];
  /** the rest before each load after the first: its start less the end of the one before */
  rests: number[];
  sent: number;
  stored: number;
  warns: Said[];
  infos: Said[];
}

/**
 * A loader on fake time whose i-th load takes tooks[i] ms of it (its commit moves the clock) and
 * accepts one more record while it commits (but the last), so records always wait when a load ends:
 * when the next load begins is the loader's rest alone. The clock moves 1 ms at a time, and only
 * while no load is under way; the loads' times are the loader's own.
 */
async function paced(tooks: number[], opts: LoaderOptions): Promise<Paced> {
  fakeTime();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-loader-'));
  const spool = await Spool.open(path.join(dir, 'spool'));
  const inner = fileStore(dir);
  const warns: Said[] = [];
  const infos: Said[] = [];
  const log = {
    warn: (details: Record<string, unknown>, message: string) => warns.push({ details, message }),
    info: (details: Record<string, unknown>, message: string) => infos.push({ details, message }),
  };
  const starts: number[] = [];
  const took: number[] = [];
  // a load is under way from its read of the spool until it has released what it loaded (or read nothing)
  let reads = 0;
  let settled = 0;
  const read = spool.read.bind(spool);
  spool.read = async (from, max) => {
    const at = Date.now();
    reads++;
    try {
      const r = await read(from, max);
      if (r.records.length > 0) starts.push(at);
      else settled++;
      return r;
    } catch (err) {
      settled++;
      throw err;
    }
  };
  const release = spool.release.bind(spool);
  spool.release = async (pos) => {
    try {
      await release(pos);
    } finally {
      settled++;
    }
  };
  let sent = 0;
  let commits = 0;
  let loader: Loader | null = null;
  const accept = async () => {
    await spool.append('E', `["e${sent++}"]`);
    loader!.accepted();
  };
  const store: Pick<EventStore, 'beginImport' | 'checkpoint'> = {
    checkpoint: (source) => inner.checkpoint(source),
    async beginImport(o) {
      const session = await inner.beginImport(o);
      const commit = session.commit.bind(session);
      session.commit = async () => {
        const i = commits++;
        if (i < tooks.length - 1) await accept();
        mock.timers.tick(tooks[i]);
        return commit();
      };
      return session;
    },
  };
  loader = new Loader(
    spool,
    store,
    { loadEnded: (seconds, ok) => (assert.ok(ok), took.push(Math.round(seconds * 1000))) },
    { log, ...opts },
  );
  /** until no load is under way: then the loader rests (its timer armed) or has nothing to do */
  const settle = async () => {
    await turn();
    await until(() => reads === settled, 'the loader came to rest');
  };
  try {
    await loader.start();
    await accept();
    for (let ms = 0; commits < tooks.length; ms++) {
      if (ms > 60_000) throw new Error(`${commits} of ${tooks.length} loads after a minute`);
      await settle();
      mock.timers.tick(1);
    }
    await settle();
    await loader.stop({ flush: true });
    const stored = fs.readFileSync(path.join(dir, 'events'), 'utf8').trim().split('\n').length;
    const loads = starts.map((start, i) => ({ start, took: took[i] }));
    const rests = loads.slice(1).map((l, i) => l.start - (loads[i].start + loads[i].took));
    return { loads, rests, sent, stored, warns, infos };
  } finally {
    await loader.stop();
    await spool.close();
    fs.rmSync(dir, { recursive: true, force: true });
    mock.timers.reset();
  }
}

test('while events keep arriving, the loader rests after each load as long as that load took', async () => {
  const { loads, rests, sent, stored } = await paced([250, 100, 400, 250, 50], { intervalMs: 1, readableWithinMs: 60_000 });
  assert.deepEqual(
    loads.map((l) => l.took),
    [250, 100, 400, 250, 50],
  );
  assert.equal(loads[0].start, T0 + 1, 'the first load: 1 ms (intervalMs) after the first record');
  assert.deepEqual(rests, [250, 100, 400, 250]);
  assert.equal(stored, sent, 'every record loaded once');
  assert.equal(sent, 5);
});

test('the rest gives way to readableWithinMs: with no time to spare, loads follow each other', async () => {
  const { rests } = await paced([250, 250, 250, 250], { intervalMs: 1, readableWithinMs: 500 });
  assert.deepEqual(rests, [0, 0, 0]);
});

test('the rest keeps the oldest waiting event within readableWithinMs of its acceptance, the next load as long as the longest of the last three', async () => {
  // rest = max(0, min(last, 380 - last - longest of the last three)): after 300, none; after 50 while
  // the 300 is among the last three, 30; once it is not, 50
  const { rests } = await paced([300, 50, 50, 50, 50], { intervalMs: 1, readableWithinMs: 380 });
  assert.deepEqual(rests, [0, 30, 30, 50]);
});

test('records of earlier runs, one segment each, are all loaded at start, one load after another', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-loader-'));
  const spoolDir = path.join(dir, 'spool');
  for (let run = 0; run < 3; run++) {
    const earlier = await Spool.open(spoolDir);
    await Promise.all(Array.from({ length: 10 }, (_, i) => earlier.append('E', `["r${run}e${i}"]`)));
    await earlier.close();
  }
  const spool = await Spool.open(spoolDir);
  const inner = fileStore(dir);
  // the third commit is the last: every segment read
  const loads: number[] = [];
  let third = () => {};
  const thirdCommitted = new Promise<void>((r) => (third = r));
  const store: Pick<EventStore, 'beginImport' | 'checkpoint'> = {
    checkpoint: (source) => inner.checkpoint(source),
    async beginImport(opts) {
      const session = await inner.beginImport(opts);
      const commit = session.commit.bind(session);
      session.commit = async () => {
        const r = await commit();
        loads.push(r.imported);
        if (loads.length === 3) third();
        return r;
      };
      return session;
    },
  };
  let replayed = 0;
  // no timer to speak of: only the start and the backlog rule load
  const loader = new Loader(spool, store, { replayed: () => replayed++ }, { intervalMs: 3_600_000 });
  try {
    await loader.start();
    assert.equal(replayed, 30);
    await thirdCommitted;
    assert.deepEqual(loads, [10, 10, 10], 'one load per segment');
    assert.equal(fs.readFileSync(path.join(dir, 'events'), 'utf8').trim().split('\n').length, 30);
  } finally {
    await loader.stop();
    await spool.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the backlog: what waits and since when, through a load under way, a failed load and a flush', () =>
  inSpool(async (spool, dir, stopLater) => {
    fakeTime();
    try {
      const inner = fileStore(dir);
      // each commit waits for `release` (and fails when told to) once its import began
      let began = () => {};
      let release = () => {};
      let failNext = false;
      const store: Pick<EventStore, 'beginImport' | 'checkpoint'> = {
        checkpoint: (source) => inner.checkpoint(source),
        async beginImport(opts) {
          const session = await inner.beginImport(opts);
          const commit = session.commit.bind(session);
          const held = new Promise<void>((r) => (release = r));
          began();
          session.commit = async () => {
            await held;
            if (failNext) {
              failNext = false;
              throw new Error('the store is down');
            }
            return commit();
          };
          return session;
        },
      };
      const ended: { seconds: number; ok: boolean }[] = [];
      // no timer to speak of: only kick() and flush load
      const loader = stopLater(
        new Loader(spool, store, { loadEnded: (seconds, ok) => ended.push({ seconds, ok }) }, { intervalMs: 3_600_000 }),
      );
      const accept = async (n: number) => {
        for (let i = 0; i < n; i++) {
          await spool.append('E', `["e${Math.random()}"]`);
          loader.accepted();
        }
      };
      await loader.start();
      assert.deepEqual(loader.backlog, { waiting: 0, oldestAcceptedAt: null });
      mock.timers.tick(1000);
      await accept(3);
      const first = loader.backlog;
      assert.deepEqual(first, { waiting: 3, oldestAcceptedAt: T0 + 1000 });

      // A load has taken the three and not committed them: they still wait, and so does what comes meanwhile.
      mock.timers.tick(10);
      let loading = new Promise<void>((r) => (began = r));
      let load = loader.kick();
      await loading;
      mock.timers.tick(10);
      await accept(2);
      assert.deepEqual(loader.backlog, { waiting: 5, oldestAcceptedAt: T0 + 1000 });
      mock.timers.tick(30);
      release();
      await load;
      const after = loader.backlog;
      assert.deepEqual(
        after,
        { waiting: 2, oldestAcceptedAt: T0 + 1020 },
        'the three are loaded; the oldest waiting is one accepted during the load',
      );
      assert.deepEqual(ended, [{ seconds: 0.04, ok: true }], 'the load took from its start to its commit: 10 + 30 ms');

      // A failed load leaves everything waiting, as it was.
      failNext = true;
      loading = new Promise<void>((r) => (began = r));
      load = loader.kick();
      await loading;
      mock.timers.tick(5);
      release();
      await load;
      assert.deepEqual(loader.backlog, after);
      assert.deepEqual(ended[1], { seconds: 0.005, ok: false });

      // Loaded at last: nothing waits.
      began = () => setImmediate(() => release());
      await loader.stop({ flush: true });
      assert.deepEqual(loader.backlog, { waiting: 0, oldestAcceptedAt: null });
      assert.deepEqual(
        ended.map((e) => e.ok),
        [true, false, true],
      );
      assert.equal(fs.readFileSync(path.join(dir, 'events'), 'utf8').trim().split('\n').length, 5);
    } finally {
      mock.timers.reset();
    }
  }));

test('a loader whose records wait longer than behindMs says so once, and says when it has caught up', async () => {
  // each load takes 250 ms and the loader rests as long: a record accepted during one waits 250 ms
  // for the next (more than behindMs), and the last load leaves nothing waiting
  const { warns, infos, rests } = await paced([250, 250, 250, 250], { intervalMs: 1, readableWithinMs: 60_000, behindMs: 100 });
  assert.deepEqual(rests, [250, 250, 250]);
  assert.equal(warns.length, 1, `one warning while behind, not one per load: ${JSON.stringify(warns)}`);
  assert.match(warns[0].message, /wait more than 0\.1 s to become readable/);
  assert.deepEqual(warns[0].details, { lag_s: 0.3, waiting: 1, last_load_s: 0.3 }, 'after the first load: 250 ms, rounded to tenths');
  assert.equal(infos.length, 1, 'caught up once everything is loaded');
  assert.match(infos[0].message, /caught up/);
  assert.deepEqual(infos[0].details, { behind_s: 1.5 }, 'behind from the end of the first load (251) to the end of the last (1751)');
});

test('a loader that keeps up says nothing', async () => {
  const { warns, infos } = await paced([1000, 1000, 1000], { intervalMs: 1, behindMs: 5000 });
  assert.deepEqual([warns, infos], [[], []]);
});
