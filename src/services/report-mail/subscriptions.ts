// Who gets a site's mailed reports (docs/decisions/reports.md). A member subscribes their own address
// (confirmed at once: it is the address they sign in with); an admin or owner, or the command line,
// adds any other address, which gets a confirmation link first and nothing else until it is followed.
// A tenant's subscription reads that tenant only. Without mail configured nothing can be subscribed:
// a subscription that can never be sent would only mislead.
import { ManageError, invalidField } from '../../domain/manage-errors.js';
import { normalizeEmail } from '../../domain/people.js';
import { REPORT_PERIODS, type ReportPeriod } from '../../domain/report-periods.js';
import { hashSecret } from '../../domain/tokens.js';
import type { CatalogStore, Site, Tenant } from '../../ports/catalog-store.js';
import type { Mailer } from '../../ports/mailer.js';
import type { ReportStore, ReportSubscription } from '../../ports/report-store.js';
import type { Clock } from '../../domain/clock.js';
import type { RandomBytes } from '../../domain/tokens.js';
import { requireRole, type WorkspaceAccess } from '../manage/access.js';
import { looksLikeLinkSecret, newSecret } from '../people/people-deps.js';
import { confirmMessage } from './confirm-message.js';
import { CONFIRM_LIFETIME_MS, confirmUrl, subscriptionOfToken } from './report-links.js';

export interface SubscriptionDeps {
  catalog: CatalogStore;
  reports: ReportStore;
  clock: Clock;
  publicUrl: string;
  random?: RandomBytes;
  /** absent: no mail is configured, and nothing can be subscribed */
  mailer?: Mailer;
}

export const MAIL_NEEDED = new ManageError(
  'CONFLICT',
  'This server sends no mail (FOOTFALL_SMTP_URL is not set), so it cannot mail reports: set FOOTFALL_SMTP_URL and FOOTFALL_MAIL_FROM, then subscribe.',
);

export function parsePeriod(v: unknown, field = 'period'): ReportPeriod {
  if (typeof v === 'string' && (REPORT_PERIODS as readonly string[]).includes(v)) return v as ReportPeriod;
  throw invalidField(field, `${field} must be "week" or "month"`);
}

export interface Subscribed {
  subscription: ReportSubscription;
  created: boolean;
  /** for an outside address: whether its confirmation mail was taken by the mail server */
  confirmation: { mailed: true } | { mailed: false; reason: string } | null;
}

/**
 * Subscribes `email` to the reports of `site` (or its `tenant`). `self`: the acting member's own
 * address, confirmed now. Otherwise an outside address, which needs the admin role (the operator has
 * it) and a confirmation. `confirmed` (the command line's --confirmed) skips that step for an address
 * the operator vouches for.
 */
export async function subscribe(
  deps: SubscriptionDeps,
  access: WorkspaceAccess & { site: Site; tenant: Tenant | null },
  input: { email?: unknown; period: unknown; self: boolean; confirmed?: boolean },
): Promise<Subscribed> {
  if (!deps.mailer) throw MAIL_NEEDED;
  const period = parsePeriod(input.period);
  let email: string;
  let userId: string | null = null;
  if (input.self) {
    if (access.actor.kind !== 'person') throw invalidField('email', 'the command line has no address of its own: give --email');
    requireRole(access, 'viewer');
    email = access.actor.user.email;
    userId = access.actor.user.id;
  } else {
    requireRole(access, 'admin');
    const e = normalizeEmail(input.email);
    if (e === null) throw invalidField('email', 'email must be one address, such as name@example.com');
    email = e;
    // a member adding their own address this way is subscribing themselves
    if (access.actor.kind === 'person' && access.actor.user.email === email) userId = access.actor.user.id;
  }
  const now = deps.clock.now();
  const confirmNow = userId !== null || input.confirmed === true;
  const secret = confirmNow ? null : newSecret(deps);
  const { subscription, created } = await deps.reports.subscribe({
    siteId: access.site.id,
    workspaceId: access.site.workspaceId,
    tenantId: access.tenant?.id ?? null,
    email,
    period,
    userId,
    confirm: secret ? { secretHash: hashSecret(secret), expiresAt: new Date(now.getTime() + CONFIRM_LIFETIME_MS).toISOString() } : null,
    now: now.toISOString(),
  });
  if (secret === null || subscription.confirmedAt !== null) return { subscription, created, confirmation: null };
  const outcome = await deps.mailer.send(
    confirmMessage({
      to: email,
      siteName: access.site.name,
      tenantName: access.tenant?.name ?? null,
      period,
      url: confirmUrl(deps.publicUrl, secret),
      expiresAt: subscription.confirmExpiresAt ?? '',
    }),
  );
  return { subscription, created, confirmation: outcome.sent ? { mailed: true } : { mailed: false, reason: outcome.reason } };
}

/** A site's subscriptions as the actor may see them: every one for admins, their own for the others. */
export async function listSubscriptions(
  deps: Pick<SubscriptionDeps, 'reports'>,
  access: WorkspaceAccess & { site: Site },
): Promise<ReportSubscription[]> {
  const all = await deps.reports.listSubscriptions(access.site.id);
  if (access.role === 'operator' || access.role === 'admin' || access.role === 'owner') return all;
  const me = access.actor.kind === 'person' ? access.actor.user.id : null;
  return all.filter((s) => s.userId !== null && s.userId === me);
}

/** Ends a subscription: any of the workspace's for an admin, a member's own for them. NOT_FOUND otherwise. */
export async function unsubscribe(deps: Pick<SubscriptionDeps, 'reports'>, access: WorkspaceAccess, id: string): Promise<void> {
  const sub = await deps.reports.getSubscription(id);
  const hidden = new ManageError('NOT_FOUND', `unknown report subscription "${id}"`);
  if (!sub || sub.workspaceId !== access.workspace.id) throw hidden;
  const own = access.actor.kind === 'person' && sub.userId === access.actor.user.id;
  if (!own && access.role !== 'operator' && access.role !== 'admin' && access.role !== 'owner') throw hidden;
  if (!(await deps.reports.unsubscribe(id))) throw hidden;
}

/** The confirmation link followed: the subscription it confirmed, or null (unknown, used or expired). */
export async function confirmByLink(
  deps: Pick<SubscriptionDeps, 'reports' | 'clock'>,
  secret: unknown,
): Promise<ReportSubscription | null> {
  if (!looksLikeLinkSecret(secret)) return null;
  return deps.reports.confirm(hashSecret(secret), deps.clock.now().toISOString());
}

/** The one-click unsubscribe: 'done', 'gone' (a right link, already unsubscribed) or 'invalid'. */
export async function unsubscribeByLink(
  deps: Pick<SubscriptionDeps, 'reports' | 'catalog'>,
  token: unknown,
): Promise<'done' | 'gone' | 'invalid'> {
  const id = await subscriptionOfToken(deps.catalog, token);
  if (id === null) return 'invalid';
  return (await deps.reports.unsubscribe(id)) ? 'done' : 'gone';
}

/** The answer of the management API and of `footfall report subscribe|list --json`. */
export function subscriptionJson(s: ReportSubscription) {
  return {
    subscription_id: s.id,
    site_id: s.siteId,
    tenant_id: s.tenantId,
    email: s.email,
    period: s.period,
    member: s.userId !== null,
    confirmed: s.confirmedAt !== null,
    created_at: s.createdAt,
  };
}
