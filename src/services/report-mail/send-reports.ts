// Sending the reports due (docs/decisions/reports.md): the server's sweep every minute, and
// `footfall report send [--now]` from cron or a test. For each confirmed subscription, the latest
// period due at `now` in its site's time zone, if it became due after the subscription was confirmed,
// is claimed (one process wins: report-store.ts), read, written, mailed and recorded. A refused or
// unreachable mail server is tried again with growing waits, then given up; each attempt is counted
// (footfall_report_mails_total) and a failure logged with the mail server's reason, never an address
// or a link. A process that dies between the send and the record lets its claim lapse: the next
// sweep after RETRY_LEASE_MS sends once more (the one duplicate a crash can cost).
import { latestDuePeriod } from '../../domain/report-periods.js';
import type { Site, Tenant, Workspace } from '../../ports/catalog-store.js';
import type { Mailer } from '../../ports/mailer.js';
import type { ReportStore, ReportSubscription } from '../../ports/report-store.js';
import type { PeopleStore } from '../../ports/people-store.js';
import type { AppDeps } from '../deps.js';
import { gatherReport, type ReportSubject } from './report-figures.js';
import { unsubscribeUrl } from './report-links.js';
import { reportMessage } from './report-message.js';

/** The waits before the 2nd to 6th attempts; after the 6th the delivery has failed for good. */
export const RETRY_WAITS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 6 * 3_600_000] as const;
/** How long one attempt holds its claim: well past a send's bound and the reads' timeout. */
export const CLAIM_MS = 10 * 60_000;
/** How many reports one process reads and sends at once. */
const PARALLEL = 4;

export type SendDeps = AppDeps & { reports: ReportStore; people: PeopleStore; mailer: Mailer };

type Gather = (subject: ReportSubject) => ReturnType<typeof gatherReport>;

export interface SendLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface SweepResult {
  sent: number;
  /** attempts that failed and will be tried again */
  retrying: number;
  /** attempts that failed for the last time */
  failed: number;
  /** the milliseconds of the reads of each site's (or tenant's) figures, read once for all its subscribers */
  readMs: number[];
}

function dashboardUrl(publicUrl: string, site: Site, tenant: Tenant | null, from: string, to: string): string {
  const q = new URLSearchParams({ from, to, ...(tenant ? { tenant_id: tenant.id } : {}) });
  return `${new URL(publicUrl).origin}/app/sites/${encodeURIComponent(site.id)}?${q}`;
}

/** Sends every report due at `nowMs` not sent yet (or whose retry is due); resolves when all are settled. */
export async function sendDueReports(deps: SendDeps, nowMs: number, log?: SendLog): Promise<SweepResult> {
  const result: SweepResult = { sent: 0, retrying: 0, failed: 0, readMs: [] };
  // the sweep's messages over a few connections kept open (SMTP's greeting, TLS and sign-in once each)
  const subscriptions = await deps.reports.confirmedSubscriptions();
  const batch = deps.mailer.batch?.() ?? null;
  const mailer = batch ?? deps.mailer;
  // each site, workspace and tenant read once per sweep
  const memo = <T>(read: (id: string) => Promise<T>) => {
    const seen = new Map<string, Promise<T>>();
    return (id: string) => {
      let p = seen.get(id);
      if (!p) seen.set(id, (p = read(id)));
      return p;
    };
  };
  const site = memo((id) => deps.catalog.getSite(id));
  const workspace = memo((id) => deps.catalog.getWorkspace(id));
  const tenant = memo((id) => deps.catalog.getTenant(id));
  // the subscribers of one site (or tenant) and period get the same figures: read once per sweep
  const figures = new Map<string, ReturnType<typeof gatherReport>>();
  const gather: Gather = (subject) => {
    const key = `${subject.site.id}\u0000${subject.tenant?.id ?? ''}\u0000${subject.due.period}\u0000${subject.due.from}`;
    let p = figures.get(key);
    if (!p) {
      p = gatherReport(deps, subject);
      p.then((r) => result.readMs.push(r.readMs)).catch(() => undefined);
      // a failed read is tried again by the next subscriber's attempt, not handed to all of them
      p.catch(() => figures.delete(key));
      figures.set(key, p);
    }
    return p;
  };
  let next = 0;
  const worker = async () => {
    while (next < subscriptions.length) {
      const sub = subscriptions[next++];
      try {
        await sendOne({ ...deps, mailer }, sub, nowMs, { site, workspace, tenant, gather }, result, log);
      } catch (err) {
        // a control-plane failure for one subscription leaves the rest to go; the next sweep tries again
        log?.warn({ subscription_id: sub.id }, `report not sent (the next sweep tries again): ${(err as Error).name}`);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: PARALLEL }, worker));
  } finally {
    await batch?.close();
  }
  return result;
}

async function sendOne(
  deps: SendDeps,
  sub: ReportSubscription,
  nowMs: number,
  read: {
    site(id: string): Promise<Site | null>;
    workspace(id: string): Promise<Workspace | null>;
    tenant(id: string): Promise<Tenant | null>;
    gather: Gather;
  },
  result: SweepResult,
  log?: SendLog,
): Promise<void> {
  const site = await read.site(sub.siteId);
  const workspace = site ? await read.workspace(site.workspaceId) : null;
  if (!site || !workspace || site.status !== 'ACTIVE') return;
  const tenant = sub.tenantId === null ? null : await read.tenant(sub.tenantId);
  if (sub.tenantId !== null && (!tenant || tenant.siteId !== site.id)) return;
  const due = latestDuePeriod(sub.period, site.timezone, nowMs);
  // a subscriber gets the reports that became due after they subscribed, not the one before
  if (sub.confirmedAt === null || due.dueMs <= Date.parse(sub.confirmedAt)) return;
  if (sub.userId !== null && (await deps.people.getRole(sub.workspaceId, sub.userId)) === null) {
    // a member's own subscription ends with their membership
    await deps.reports.unsubscribe(sub.id);
    return;
  }
  const now = new Date(nowMs).toISOString();
  const claim = await deps.reports.claimDelivery(sub.id, due.from, now, new Date(nowMs + CLAIM_MS).toISOString());
  if (!claim) return;
  let reason: string;
  try {
    const { data } = await read.gather({ workspace, site, tenant, due });
    const message = reportMessage(sub.email, {
      ...data,
      dashboardUrl: dashboardUrl(deps.config.publicUrl, site, tenant, due.from, due.to),
      unsubscribeUrl: await unsubscribeUrl(deps.catalog, deps.config.publicUrl, sub.id),
    });
    const outcome = await deps.mailer.send(message);
    if (outcome.sent) {
      await deps.reports.settleDelivery(sub.id, due.from, { sent: true, now: deps.clock.now().toISOString() });
      deps.metrics?.reportMail?.('sent');
      result.sent++;
      return;
    }
    reason = outcome.reason;
  } catch (err) {
    // the reads failed (the store unavailable, a timeout): as a refused send, tried again later
    reason = `the report could not be read (${(err as { code?: string }).code ?? (err as Error).name})`;
  }
  const wait = RETRY_WAITS_MS[claim.attempts - 1];
  const retryAt = wait === undefined ? null : new Date(nowMs + wait).toISOString();
  await deps.reports.settleDelivery(sub.id, due.from, { sent: false, reason, retryAt });
  deps.metrics?.reportMail?.(retryAt ? 'retry' : 'failed');
  if (retryAt) result.retrying++;
  else result.failed++;
  log?.warn(
    { subscription_id: sub.id, site_id: site.id, period: sub.period, period_start: due.from, attempt: claim.attempts, retry_at: retryAt },
    retryAt
      ? `report mail not sent, tried again at ${retryAt}: ${reason}`
      : `report mail not sent, given up after ${claim.attempts} attempts: ${reason}`,
  );
}
