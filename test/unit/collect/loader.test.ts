// The loader's pace while events keep arriving: it rests after a load as long as that load took, so
// that commits (a large fixed cost each) leave the cores to the requests half the time, unless the
// rest would make the oldest waiting event miss readableWithinMs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EventStore } from '../../../src/ports/event-store.js';
import { Loader } from '../../../src/ingest/collect/loader.js';
import { Spool } from '../../../src/ingest/collect/spool.js';
import { fileStore } from './fixtures/file-store.js';

const COMMIT_MS = 250;

/** fileStore, noting when each import began and when its commit ended. */
function timedStore(dir: string): { store: Pick<EventStore, 'beginImport' | 'checkpoint'>; loads: { begin: number; end: number }[] } {
  const inner = fileStore(dir, COMMIT_MS);
  const loads: { begin: number; end: number }[] = [];
  return {
    loads,
    store: {
      checkpoint: (source) => inner.checkpoint(source),
      async beginImport(opts) {
        const load = { begin: Date.now(), end: 0 };
        const session = await inner.beginImport(opts);
        const commit = session.commit.bind(session);
        session.commit = async () => {
          const r = await commit();
          load.end = Date.now();
          loads.push(load);
          return r;
        };
        return session;
      },
    },
  };
}

/** Appends a record every few ms for `ms`, telling the loader of each. */
async function stream(spool: Spool, loader: Loader, ms: number): Promise<number> {
  const until = Date.now() + ms;
  let n = 0;
  while (Date.now() < until) {
    await spool.append('E', `["e${n++}"]`);
    loader.accepted();
    await new Promise((r) => setTimeout(r, 5));
  }
  return n;
}

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

/** A loader over a fresh spool and a timed store, fed records for 2.5 s, then flushed and stopped. */
async function streamed(readableWithinMs: number): Promise<{ loads: { begin: number; end: number }[]; sent: number; stored: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-loader-'));
  const spool = await Spool.open(path.join(dir, 'spool'));
  const { store, loads } = timedStore(dir);
  // due at once on every record (a 1 ms timer): only the rest spaces the loads
  const loader = new Loader(spool, store, {}, { intervalMs: 1, readableWithinMs });
  try {
    await loader.start();
    const sent = await stream(spool, loader, 2500);
    await loader.stop({ flush: true });
    const stored = fs.readFileSync(path.join(dir, 'events'), 'utf8').trim().split('\n').length;
    return { loads, sent, stored };
  } finally {
    await loader.stop();
    await spool.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('while events keep arriving, the loader rests after each load at least as long as the load took', async () => {
  const { loads, sent, stored } = await streamed(60_000);
  assert.ok(loads.length >= 3, `${loads.length} loads`);
  for (let i = 1; i < loads.length - 1; i++) {
    const took = loads[i - 1].end - loads[i - 1].begin;
    const rest = loads[i].begin - loads[i - 1].end;
    assert.ok(rest >= took - 5, `load ${i} started ${rest} ms after one that took ${took} ms`);
  }
  assert.equal(stored, sent, 'every record loaded once');
});

test('the rest gives way to readableWithinMs: with no time to spare, loads follow each other', async () => {
  const { loads } = await streamed(2 * COMMIT_MS);
  assert.ok(loads.length >= 3, `${loads.length} loads`);
  const rests = loads.slice(1).map((l, i) => l.begin - loads[i].end);
  const tooks = loads.map((l) => l.end - l.begin);
  // the loader measures more than the commit (read, release): its rest is at most 0 here
  assert.ok(Math.min(...rests) < Math.min(...tooks), `rests ${rests.join(', ')} ms; loads took ${tooks.join(', ')} ms`);
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
  const { store, loads } = timedStore(dir);
  let replayed = 0;
  // no timer to speak of: only the start and the backlog rule load
  const loader = new Loader(spool, store, { replayed: () => replayed++ }, { intervalMs: 3_600_000 });
  try {
    await loader.start();
    for (let i = 0; i < 100 && loads.length < 3; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(replayed, 30);
    assert.equal(fs.readFileSync(path.join(dir, 'events'), 'utf8').trim().split('\n').length, 30);
  } finally {
    await loader.stop();
    await spool.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the backlog: what waits and since when, through a load under way, a failed load and a flush', () =>
  inSpool(async (spool, dir, stopLater) => {
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
    const loader = stopLater(new Loader(spool, store, { loadEnded: (seconds, ok) => ended.push({ seconds, ok }) }, { intervalMs: 3_600_000 }));
    const accept = async (n: number) => {
      for (let i = 0; i < n; i++) {
        await spool.append('E', `["e${Math.random()}"]`);
        loader.accepted();
      }
    };
    await loader.start();
    assert.deepEqual(loader.backlog, { waiting: 0, oldestAcceptedAt: null });
    const t0 = Date.now();
    await accept(3);
    const first = loader.backlog;
    assert.equal(first.waiting, 3);
    assert.ok(first.oldestAcceptedAt !== null && first.oldestAcceptedAt >= t0 && first.oldestAcceptedAt <= Date.now());

    // A load has taken the three and not committed them: they still wait, and so does what comes meanwhile.
    let loading = new Promise<void>((r) => (began = r));
    let load = loader.kick();
    await loading;
    const t1 = Date.now();
    await accept(2);
    assert.deepEqual(loader.backlog, { waiting: 5, oldestAcceptedAt: first.oldestAcceptedAt });
    await new Promise((r) => setTimeout(r, 30));
    release();
    await load;
    const after = loader.backlog;
    assert.equal(after.waiting, 2, 'the three are loaded');
    assert.ok(after.oldestAcceptedAt !== null && after.oldestAcceptedAt >= t1, 'the oldest waiting is one accepted during the load');
    assert.equal(ended.length, 1);
    assert.equal(ended[0].ok, true);
    assert.ok(ended[0].seconds >= 0.03, `the load took ${ended[0].seconds} s, its commit held 30 ms`);

    // A failed load leaves everything waiting, as it was.
    failNext = true;
    loading = new Promise<void>((r) => (began = r));
    load = loader.kick();
    await loading;
    release();
    await load;
    assert.deepEqual(loader.backlog, after);
    assert.equal(ended.length, 2);
    assert.equal(ended[1].ok, false);

    // Loaded at last: nothing waits.
    began = () => setImmediate(() => release());
    await loader.stop({ flush: true });
    assert.deepEqual(loader.backlog, { waiting: 0, oldestAcceptedAt: null });
    assert.deepEqual(
      ended.map((e) => e.ok),
      [true, false, true],
    );
    assert.equal(fs.readFileSync(path.join(dir, 'events'), 'utf8').trim().split('\n').length, 5);
  }));

type Said = { details: Record<string, unknown>; message: string };

test('a loader whose records wait longer than behindMs says so once, and says when it has caught up', () =>
  inSpool(async (spool, dir, stopLater) => {
    const { store } = timedStore(dir);
    const warns: Said[] = [];
    const infos: Said[] = [];
    const log = { warn: (details: Record<string, unknown>, message: string) => warns.push({ details, message }), info: (details: Record<string, unknown>, message: string) => infos.push({ details, message }) };
    // each commit takes COMMIT_MS and the loader rests as long after it: records wait longer than 100 ms
    const loader = stopLater(new Loader(spool, store, {}, { intervalMs: 1, readableWithinMs: 60_000, behindMs: 100, log }));
    await loader.start();
    await stream(spool, loader, 1500);
    assert.equal(warns.length, 1, `one warning while behind, not one per load: ${JSON.stringify(warns)}`);
    assert.match(warns[0].message, /wait more than 0\.1 s to become readable/);
    assert.ok(Number(warns[0].details.lag_s) >= 0.1, JSON.stringify(warns[0].details));
    assert.ok(Number(warns[0].details.last_load_s) >= COMMIT_MS / 1000 - 0.05, JSON.stringify(warns[0].details));
    assert.equal(infos.length, 0, 'not caught up while records keep waiting');
    await loader.stop({ flush: true });
    assert.equal(infos.length, 1, 'caught up once everything is loaded');
    assert.match(infos[0].message, /caught up/);
    assert.ok(Number(infos[0].details.behind_s) > 0);
    assert.equal(warns.length, 1);
  }));

test('a loader that keeps up says nothing', () =>
  inSpool(async (spool, dir, stopLater) => {
    const said: string[] = [];
    const log = { warn: (_d: Record<string, unknown>, m: string) => said.push(m), info: (_d: Record<string, unknown>, m: string) => said.push(m) };
    const loader = stopLater(new Loader(spool, fileStore(dir), {}, { intervalMs: 1, behindMs: 5000, log }));
    await loader.start();
    await stream(spool, loader, 500);
    await loader.stop({ flush: true });
    assert.deepEqual(said, []);
  }));
