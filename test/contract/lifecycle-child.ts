// A child process for the kill -9 cases of event-store-lifecycle.contract.ts: opens the store it is
// given, says "ready" on stdout, runs one purge or site deletion, says "done". The test kills it at a
// random moment in between. Each statement the child sends waits a little first, so that the
// operation lasts long enough for the kill to land between any two of its statements (or inside one)
// rather than mostly before or after it.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { EventStore } from '../../src/ports/event-store.js';
import type { StoreLocation } from './event-store.contract.js';

export interface ChildJob {
  op: 'purge' | 'delete';
  site: string;
  /** the purge's horizon (null for a deletion) */
  beforeDay: string | null;
}

const SELF = fileURLToPath(import.meta.url);

/** The wait before each statement of the child. */
const STEP_MS = 25;
/** Longest wait after "ready" before the kill: about as long as the operation takes on the engine, slowed so. */
const KILL_WITHIN_MS = { duckdb: 300, clickhouse: 1000 };

/**
 * Runs `job` on the store at `loc` in a child process and kills it (SIGKILL) at a random moment after
 * it said it was starting; says when, for failure messages.
 */
export async function killMidway(loc: StoreLocation, job: ChildJob): Promise<{ midway: boolean; when: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', SELF, JSON.stringify({ loc, job })], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('ready\n')) resolve();
    });
    void exited.then(() => reject(new Error(`the child exited before it was ready: ${err}`)));
  });
  const delay = Math.floor(Math.random() * KILL_WITHIN_MS[loc.kind]);
  const finished = await Promise.race([exited.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), delay))]);
  if (finished) {
    if (!out.includes('done\n')) throw new Error(`the child failed: ${err}`);
    return { midway: false, when: 'after it had finished' };
  }
  child.kill('SIGKILL');
  await exited;
  const done = out.includes('done\n');
  return { midway: !done, when: `${delay} ms after it started${done ? ' (it had finished)' : ''}` };
}

/** Every statement the child's store sends waits STEP_MS first. */
async function slowDown(kind: StoreLocation['kind']): Promise<void> {
  const wait = () => new Promise((r) => setTimeout(r, STEP_MS));
  const slow = (proto: Record<string, unknown>, names: string[]) => {
    for (const name of names) {
      const f = proto[name] as (...a: unknown[]) => Promise<unknown>;
      proto[name] = async function (this: unknown, ...a: unknown[]) {
        await wait();
        return f.apply(this, a);
      };
    }
  };
  if (kind === 'duckdb') {
    const { DuckDBConnection } = await import('@duckdb/node-api');
    slow(DuckDBConnection.prototype as unknown as Record<string, unknown>, ['run', 'runAndReadAll']);
  } else {
    const { ClickHouseNode } = await import('../../src/engines/clickhouse/node.js');
    slow(ClickHouseNode.prototype as unknown as Record<string, unknown>, ['command', 'query', 'insertNdjson']);
  }
}

async function open(loc: StoreLocation): Promise<{ store: EventStore; close(): Promise<void> }> {
  if (loc.kind === 'duckdb') {
    const { openDuckDbEventStore } = await import('../../src/engines/duckdb/duckdb-event-store.js');
    const store = await openDuckDbEventStore({ file: loc.file, threads: 1 });
    return { store, close: () => store.close() };
  }
  const { openClickHouse } = await import('../../src/engines/clickhouse/open-clickhouse.js');
  return openClickHouse(loc.url);
}

if (process.argv[1] === SELF) {
  const { loc, job } = JSON.parse(process.argv[2]) as { loc: StoreLocation; job: ChildJob };
  const opened = await open(loc);
  await slowDown(loc.kind);
  process.stdout.write('ready\n');
  if (job.op === 'purge') await opened.store.purgeDays(job.site, job.beforeDay!);
  else await opened.store.deleteSiteData(job.site);
  process.stdout.write('done\n');
  await opened.close();
}
