// The running server's daily purge (docs/product.md §10): technical retention and the deletions a crash left
// pending, once a day. On a shared control plane several servers run this timer: a lease row lets one of
// them at a time do the work; the others skip that turn.
import { randomUUID } from 'node:crypto';
import type { LifecycleDeps } from './lifecycle-deps.js';
import { failedPurges, purgeAll } from './purge.js';

export const PURGE_LEASE = 'daily-purge';
const DAY_MS = 86_400_000;

export interface DailyPurgeOptions {
  /** the first run after start (default 10 minutes: long enough not to slow start-up) */
  firstDelayMs?: number;
  intervalMs?: number;
  /** how long a run may hold the lease before another server may take it (a holder that died) */
  leaseMs?: number;
  log: { info(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
}

export interface DailyPurge {
  /** one run now (what the timer calls); false when another process holds the lease */
  runOnce(): Promise<boolean>;
  stop(): void;
}

/** Credentials in URLs a store's error may quote never reach the log. */
function redacted(message: string): string {
  return message.replace(/\/\/[^@/\s]*@/g, '//***@');
}

export function startDailyPurge(deps: LifecycleDeps, opts: DailyPurgeOptions): DailyPurge {
  const owner = randomUUID();
  const leaseMs = opts.leaseMs ?? 6 * 3_600_000;
  let running: Promise<boolean> | null = null;

  const run = async (): Promise<boolean> => {
    if (!(await deps.lifecycle.takeLease(PURGE_LEASE, owner, leaseMs))) {
      opts.log.info({}, 'daily purge skipped: another footfall process runs it now');
      return false;
    }
    try {
      const r = await purgeAll(deps, { dryRun: false });
      const events = r.sites.reduce((n, s) => n + (s.removed?.events ?? 0), 0);
      opts.log.info({ sites: r.sites.length, events, finished_deletions: r.finishedDeletions.length }, 'daily purge done');
      for (const s of failedPurges(r))
        opts.log.error({ site_id: s.siteId }, `daily purge of a site failed (next run retries): ${redacted(s.error ?? '')}`);
      if (r.deletionError !== undefined)
        opts.log.error({}, `pending site deletions failed (next run retries): ${redacted(r.deletionError)}`);
    } finally {
      await deps.lifecycle.releaseLease(PURGE_LEASE, owner);
    }
    return true;
  };
  const runOnce = () => {
    running ??= run().finally(() => {
      running = null;
    });
    return running;
  };
  const tick = () => {
    runOnce().catch((err) =>
      opts.log.error({}, `daily purge failed (next run retries): ${redacted((err as Error).message ?? String(err))}`),
    );
  };
  // unref'd: the timers never keep a process alive that is otherwise done
  const first = setTimeout(tick, opts.firstDelayMs ?? 10 * 60_000);
  first.unref();
  const every = setInterval(tick, opts.intervalMs ?? DAY_MS);
  every.unref();
  return {
    runOnce,
    stop() {
      clearTimeout(first);
      clearInterval(every);
    },
  };
}
