// importLines for large inputs: the same import, with parsing, validation, enrichment, identity
// and encoding done by worker threads while this thread feeds the store. Results are taken in
// input order, so line numbers, the errors list and the rows handed to the sink are exactly
// what importLines gives. Memory stays bounded: at most two chunks per worker in flight, one
// store chunk being gathered and one being appended.
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { NormalizeSite } from '../parse/normalize.js';
import { MmdbGeoLookup } from '../parse/mmdb-geo-lookup.js';
import { catalogLookup, ImportRun, VISITOR_SALT_SECRET, type ImportOptions, type ImportSink, type ImportSummary } from './import-lines.js';
import type { FromWorker, ToWorker, WorkerInit } from './parse-worker.js';

type Done = Extract<FromWorker, { type: 'done' }>;

/** Parse workers for this machine: every core; the store's own threads mostly wait on them. */
export function defaultParseWorkers(): number {
  return Math.max(1, Math.min(os.availableParallelism(), 8));
}

export async function importChunksParallel(
  chunks: AsyncIterable<Uint8Array>,
  opts: ImportOptions & { sink: Required<Pick<ImportSink, 'appendEncoded'>> & ImportSink; workers?: number },
): Promise<ImportSummary> {
  const run = new ImportRun(opts);
  const sink = opts.sink;
  const secret = await opts.catalog.getOrCreateSecret(VISITOR_SALT_SECRET);
  const cfg = { format: opts.format, defaultSiteId: opts.defaultSiteId, nowMs: opts.nowMs, secret };
  if (cfg.format.kind === 'access-log' && !cfg.defaultSiteId) throw new Error('an access-log import needs --site');
  const lookup = catalogLookup(opts.catalog);
  // One catalog question per site or tenant, however many workers ask it.
  const answers = new Map<string, Promise<NormalizeSite | string | null>>();
  const answer = (kind: 'site' | 'tenant', key: string) => {
    const k = `${kind}\u0000${key}`;
    let a = answers.get(k);
    if (!a) {
      a = Promise.resolve(kind === 'site' ? lookup.site(key) : lookup.tenantSite(key));
      answers.set(k, a);
    }
    return a;
  };

  // Workers open their own lookup over the same shared bytes: the database is loaded once.
  if (opts.geo && !(opts.geo instanceof MmdbGeoLookup)) throw new Error('a parallel import geolocates with an MmdbGeoLookup');
  const geo = opts.geo ? opts.geo.source : null;
  const pool = startWorkers(opts.workers ?? defaultParseWorkers(), { cfg, maxErrors: run.maxErrors, geo }, answer);
  return run.finish(async () => {
    try {
      const inFlight: Promise<Done>[] = [];
      let parts: string[] = [];
      let count = 0;
      const take = async () => {
        const r = await inFlight.shift()!;
        run.addLines(r.lines, r);
        if (r.count > 0) {
          parts.push(r.encoded);
          count += r.count;
        }
        if (count >= run.chunkSize) {
          const text = parts.join('');
          const n = count;
          parts = [];
          count = 0;
          await run.flush(() => sink.appendEncoded(text, n));
        }
        opts.onProgress?.({ lines: run.summary.lines, rejected: run.summary.rejected });
      };
      let seq = 0;
      for await (const chunk of chunks) {
        inFlight.push(pool.submit(seq++, chunk));
        if (inFlight.length >= 2 * pool.size) await take();
      }
      while (inFlight.length) await take();
      if (count > 0) await run.flush(() => sink.appendEncoded(parts.join(''), count));
    } finally {
      await pool.close();
    }
  });
}

interface Pool {
  size: number;
  submit(seq: number, bytes: Uint8Array): Promise<Done>;
  close(): Promise<void>;
}

function startWorkers(
  size: number,
  init: WorkerInit,
  answer: (kind: 'site' | 'tenant', key: string) => Promise<NormalizeSite | string | null>,
): Pool {
  const waiting = new Map<number, { resolve: (d: Done) => void; reject: (e: Error) => void }>();
  let failure: Error | null = null;
  const fail = (err: Error) => {
    failure ??= err;
    for (const w of waiting.values()) w.reject(failure);
    waiting.clear();
  };
  const workers = Array.from({ length: size }, () => {
    const w = spawnParseWorker(init);
    w.on('message', (msg: FromWorker) => {
      if (msg.type === 'ask') {
        answer(msg.kind, msg.key).then(
          (value) => w.postMessage({ type: 'answer', id: msg.id, value } satisfies ToWorker),
          (err: Error) => fail(err),
        );
      } else if (msg.type === 'done') {
        waiting.get(msg.seq)?.resolve(msg);
        waiting.delete(msg.seq);
      } else {
        fail(new Error(`parse worker failed: ${msg.message}`));
      }
    });
    w.on('error', (err) => fail(err));
    w.on('exit', (code) => {
      if (waiting.size) fail(new Error(`parse worker exited (code ${code})`));
    });
    return w;
  });
  // Chunks are dealt round-robin: they are the same size, and in-order results need no balancing.
  return {
    size,
    submit(seq, bytes) {
      const p = failure
        ? Promise.reject(failure)
        : new Promise<Done>((resolve, reject) => {
            waiting.set(seq, { resolve, reject });
            workers[seq % size].postMessage({ type: 'chunk', seq, bytes } satisfies ToWorker);
          });
      // Awaited in order later; one failure rejects them all, and only the first is reported.
      p.catch(() => undefined);
      return p;
    },
    async close() {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}

/**
 * The worker runs TypeScript like this process: under `node --import tsx` it inherits the loader;
 * under bin/footfall.js (tsx registered in-process only) it registers tsx itself first.
 */
function spawnParseWorker(init: WorkerInit): Worker {
  const here = fileURLToPath(import.meta.url);
  const entry = new URL(`./parse-worker${path.extname(here)}`, import.meta.url).href;
  let tsx: string | null = null;
  try {
    tsx = import.meta.resolve('tsx/esm/api');
  } catch {
    // compiled to JavaScript: the worker needs no loader
  }
  const boot = `
    const { workerData } = require('node:worker_threads');
    import(workerData.entry).catch(async (err) => {
      if (!err || err.code !== 'ERR_UNKNOWN_FILE_EXTENSION' || !workerData.tsx) throw err;
      (await import(workerData.tsx)).register();
      await import(workerData.entry + '?tsx'); // the failed load stays cached under the plain URL
    });`;
  // A larger young generation: each line makes a dozen short-lived objects, and scavenges that
  // promote them cost more than the memory (bounded: 64 MB per worker).
  return new Worker(boot, { eval: true, workerData: { ...init, entry, tsx }, resourceLimits: { maxYoungGenerationSizeMb: 64 } });
}
