// The running server's report sweep: every minute, the reports due (send-reports.ts). Every server
// sharing a control plane runs it; the delivery claims, not a lease, keep each report to one sender,
// so a slow sweep in one process never holds back another's.
import { sendDueReports, type SendDeps, type SendLog, type SweepResult } from './send-reports.js';

export const SWEEP_EVERY_MS = 60_000;

export interface ReportSweep {
  /** one sweep at the deps' clock now (what the timer calls); a sweep under way is waited for instead */
  runOnce(): Promise<SweepResult>;
  stop(): Promise<void>;
}

export function startReportSweep(
  deps: SendDeps,
  log: SendLog & { error(obj: object, msg?: string): void },
  everyMs = SWEEP_EVERY_MS,
): ReportSweep {
  let running: Promise<SweepResult> | null = null;
  const runOnce = () => {
    running ??= sendDueReports(deps, deps.clock.now().getTime(), log).finally(() => {
      running = null;
    });
    return running;
  };
  const timer = setInterval(() => {
    runOnce().then(
      (r) => {
        if (r.sent + r.retrying + r.failed > 0) log.info({ sent: r.sent, retrying: r.retrying, failed: r.failed }, 'report sweep done');
      },
      (err) => log.error({}, `report sweep failed (the next one tries again): ${(err as Error).name}`),
    );
  }, everyMs);
  // never keeps a process alive that is otherwise done
  timer.unref();
  return {
    runOnce,
    async stop() {
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
