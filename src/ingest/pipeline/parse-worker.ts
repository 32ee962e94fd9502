// A parse worker of a parallel import (import-parallel.ts): turns chunks of raw lines into
// encoded rows with the same LineProcessor as the importing thread; catalog questions go to it.
import { parentPort, workerData } from 'node:worker_threads';
import type { EventRow } from '../../ports/event-store.js';
import type { NormalizeSite } from '../parse/normalize.js';
import { LineProcessor, type ProcessorConfig } from './line-processor.js';
import { MmdbGeoLookup, type GeoSource } from '../parse/mmdb-geo-lookup.js';
import { splitLines } from './read-lines.js';

export interface WorkerInit {
  cfg: ProcessorConfig;
  maxErrors: number;
  /** the geolocation database, shared with the importing thread (no copy); null: none */
  geo: GeoSource | null;
}

export type ToWorker =
  | { type: 'chunk'; seq: number; bytes: Uint8Array }
  | { type: 'answer'; id: number; value: NormalizeSite | string | null };

export type FromWorker =
  | {
      type: 'done';
      seq: number;
      lines: number;
      count: number;
      encoded: string;
      rejected: number;
      skipped: number;
      skipped_by_reason: Record<string, number>;
      errors: { line: number; reason: string }[];
    }
  | { type: 'ask'; id: number; kind: 'site' | 'tenant'; key: string }
  | { type: 'failed'; seq: number; message: string };

const port = parentPort;
if (port) {
  const init = workerData as WorkerInit;
  const asked = new Map<number, (value: NormalizeSite | string | null) => void>();
  let askSeq = 0;
  const ask = <T extends NormalizeSite | string | null>(kind: 'site' | 'tenant', key: string): Promise<T> =>
    new Promise((resolve) => {
      const id = ++askSeq;
      asked.set(id, resolve as (v: NormalizeSite | string | null) => void);
      port.postMessage({ type: 'ask', id, kind, key } satisfies FromWorker);
    });
  const processor = new LineProcessor(
    init.cfg,
    {
      site: (id) => ask<NormalizeSite | null>('site', id),
      tenantSite: (id) => ask<string | null>('tenant', id),
    },
    init.geo ? new MmdbGeoLookup(init.geo) : null,
  );

  // Chunks are processed one at a time, in the order they arrive.
  let queue: Promise<void> = Promise.resolve();
  const work = async (seq: number, bytes: Uint8Array) => {
    try {
      const lines = splitLines(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
      let encoded = '';
      let count = 0;
      const emit = (_row: EventRow, line: string) => {
        encoded += line + '\n';
        count++;
      };
      const tally = await processor.process(lines, emit, init.maxErrors);
      port.postMessage({ type: 'done', seq, lines: lines.length, count, encoded, ...tally } satisfies FromWorker);
    } catch (err) {
      port.postMessage({ type: 'failed', seq, message: (err as Error)?.stack ?? String(err) } satisfies FromWorker);
    }
  };
  port.on('message', (msg: ToWorker) => {
    if (msg.type === 'answer') {
      const resolve = asked.get(msg.id);
      asked.delete(msg.id);
      resolve?.(msg.value);
    } else {
      queue = queue.then(() => work(msg.seq, msg.bytes));
    }
  });
}
