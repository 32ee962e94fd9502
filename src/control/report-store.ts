// ReportStore over Kysely: report subscriptions and their deliveries, the same statements on SQLite
// and PostgreSQL. Claiming a delivery is one INSERT or one conditional UPDATE: of several processes
// asking at once, exactly one gets a row back (docs/decisions/reports.md).
import { randomBytes } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { ReportPeriod } from '../domain/report-periods.js';
import { newId, type RandomBytes } from '../domain/tokens.js';
import type { DeliveryState, NewReportSubscription, ReportDelivery, ReportStore, ReportSubscription } from '../ports/report-store.js';
import { isUniqueViolation } from './db-errors.js';
import type { ControlDB, ReportDeliveriesTable, ReportSubscriptionsTable } from './schema.js';

function toSubscription(r: Selectable<ReportSubscriptionsTable>): ReportSubscription {
  return {
    id: r.id,
    siteId: r.site_id,
    workspaceId: r.workspace_id,
    tenantId: r.tenant_id === '' ? null : r.tenant_id,
    email: r.email,
    period: r.period as ReportPeriod,
    userId: r.user_id,
    confirmedAt: r.confirmed_at,
    confirmExpiresAt: r.confirm_expires_at,
    createdAt: r.created_at,
  };
}

function toDelivery(r: Selectable<ReportDeliveriesTable>): ReportDelivery {
  return {
    subscriptionId: r.subscription_id,
    periodStart: r.period_start,
    state: r.state as DeliveryState,
    attempts: Number(r.attempts),
    notBefore: r.not_before,
    sentAt: r.sent_at,
    lastError: r.last_error,
  };
}

export class KyselyReportStore implements ReportStore {
  private readonly random: RandomBytes;

  constructor(
    private readonly db: Kysely<ControlDB>,
    opts: { random?: RandomBytes } = {},
  ) {
    this.random = opts.random ?? randomBytes;
  }

  private async find(input: NewReportSubscription) {
    return this.db
      .selectFrom('report_subscriptions')
      .selectAll()
      .where('site_id', '=', input.siteId)
      .where('tenant_id', '=', input.tenantId ?? '')
      .where('email', '=', input.email)
      .where('period', '=', input.period)
      .executeTakeFirst();
  }

  async subscribe(input: NewReportSubscription): Promise<{ subscription: ReportSubscription; created: boolean }> {
    const row: ReportSubscriptionsTable = {
      id: newId('rep', this.random),
      site_id: input.siteId,
      workspace_id: input.workspaceId,
      tenant_id: input.tenantId ?? '',
      email: input.email,
      period: input.period,
      user_id: input.userId,
      confirmed_at: input.confirm ? null : input.now,
      confirm_secret_hash: input.confirm?.secretHash ?? null,
      confirm_expires_at: input.confirm?.expiresAt ?? null,
      created_at: input.now,
    };
    try {
      await this.db.insertInto('report_subscriptions').values(row).execute();
      return { subscription: toSubscription(row), created: true };
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
    const existing = await this.find(input);
    if (!existing) throw new Error('report subscription vanished while subscribing');
    let r = existing;
    if (existing.confirmed_at === null) {
      // asked again: a member's own address is confirmed now; an outside one gets a new link
      const set = input.confirm
        ? { confirm_secret_hash: input.confirm.secretHash, confirm_expires_at: input.confirm.expiresAt }
        : { confirmed_at: input.now, confirm_secret_hash: null, confirm_expires_at: null, user_id: input.userId };
      await this.db.updateTable('report_subscriptions').set(set).where('id', '=', existing.id).execute();
      r = { ...existing, ...set };
    } else if (input.userId !== null && existing.user_id === null) {
      // an address a member now subscribes themselves ends with their membership from now on
      await this.db.updateTable('report_subscriptions').set({ user_id: input.userId }).where('id', '=', existing.id).execute();
      r = { ...existing, user_id: input.userId };
    }
    return { subscription: toSubscription(r), created: false };
  }

  async getSubscription(id: string): Promise<ReportSubscription | null> {
    const r = await this.db.selectFrom('report_subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toSubscription(r) : null;
  }

  async listSubscriptions(siteId: string): Promise<ReportSubscription[]> {
    const rows = await this.db
      .selectFrom('report_subscriptions')
      .selectAll()
      .where('site_id', '=', siteId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toSubscription);
  }

  async confirmedSubscriptions(): Promise<ReportSubscription[]> {
    const rows = await this.db
      .selectFrom('report_subscriptions')
      .selectAll()
      .where('confirmed_at', 'is not', null)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toSubscription);
  }

  async confirm(secretHash: string, now: string): Promise<ReportSubscription | null> {
    const r = await this.db
      .updateTable('report_subscriptions')
      .set({ confirmed_at: now, confirm_secret_hash: null, confirm_expires_at: null })
      .where('confirm_secret_hash', '=', secretHash)
      .where('confirmed_at', 'is', null)
      .where('confirm_expires_at', '>', now)
      .returningAll()
      .executeTakeFirst();
    return r ? toSubscription(r) : null;
  }

  async unsubscribe(id: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('report_deliveries').where('subscription_id', '=', id).execute();
      const r = await trx.deleteFrom('report_subscriptions').where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    });
  }

  async claimDelivery(subscriptionId: string, periodStart: string, now: string, leaseUntil: string): Promise<ReportDelivery | null> {
    const fresh: ReportDeliveriesTable = {
      subscription_id: subscriptionId,
      period_start: periodStart,
      state: 'sending',
      attempts: 1,
      not_before: leaseUntil,
      sent_at: null,
      last_error: null,
    };
    try {
      await this.db.insertInto('report_deliveries').values(fresh).execute();
      return toDelivery(fresh);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
    // a retry whose time came, or a claim whose holder let it lapse: one UPDATE, so one taker
    const r = await this.db
      .updateTable('report_deliveries')
      .set((eb) => ({ state: 'sending', attempts: eb('attempts', '+', 1), not_before: leaseUntil }))
      .where('subscription_id', '=', subscriptionId)
      .where('period_start', '=', periodStart)
      .where('state', 'in', ['sending', 'retry'])
      .where('not_before', '<=', now)
      .returningAll()
      .executeTakeFirst();
    return r ? toDelivery(r) : null;
  }

  async settleDelivery(
    subscriptionId: string,
    periodStart: string,
    outcome: { sent: true; now: string } | { sent: false; reason: string; retryAt: string | null },
  ): Promise<void> {
    const set = outcome.sent
      ? { state: 'sent', sent_at: outcome.now, not_before: outcome.now }
      : outcome.retryAt !== null
        ? { state: 'retry', not_before: outcome.retryAt, last_error: outcome.reason }
        : { state: 'failed', last_error: outcome.reason };
    await this.db
      .updateTable('report_deliveries')
      .set(set)
      .where('subscription_id', '=', subscriptionId)
      .where('period_start', '=', periodStart)
      .execute();
  }

  async listDeliveries(subscriptionId: string): Promise<ReportDelivery[]> {
    const rows = await this.db
      .selectFrom('report_deliveries')
      .selectAll()
      .where('subscription_id', '=', subscriptionId)
      .orderBy('period_start', 'desc')
      .execute();
    return rows.map(toDelivery);
  }
}
