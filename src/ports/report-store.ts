// The control plane's record of mailed reports (docs/decisions/reports.md): who is subscribed to which
// site's (or tenant's) weekly or monthly report, and which period each subscriber was sent. A delivery
// row per subscription and period is the once-only rule: whoever claims it sends it, every other process
// finds it claimed, also across several servers sharing one PostgreSQL.
import type { ReportPeriod } from '../domain/report-periods.js';

export interface ReportSubscription {
  id: string;
  siteId: string;
  workspaceId: string;
  /** null: the whole site */
  tenantId: string | null;
  /** lower-cased */
  email: string;
  period: ReportPeriod;
  /** set when a member subscribed their own address: the subscription ends with the membership */
  userId: string | null;
  /** null: an outside address that has not confirmed yet; nothing but the confirmation is sent to it */
  confirmedAt: string | null;
  /** when the confirmation link stops working (null once confirmed, or for a member's own address) */
  confirmExpiresAt: string | null;
  createdAt: string;
}

export interface NewReportSubscription {
  siteId: string;
  workspaceId: string;
  tenantId: string | null;
  email: string;
  period: ReportPeriod;
  userId: string | null;
  /** null: confirmed now; else the hash of the secret the confirmation link carries, and its end */
  confirm: { secretHash: string; expiresAt: string } | null;
  now: string;
}

export type DeliveryState = 'sending' | 'retry' | 'sent' | 'failed';

export interface ReportDelivery {
  subscriptionId: string;
  /** the period's first local day */
  periodStart: string;
  state: DeliveryState;
  /** sends tried, this one included */
  attempts: number;
  /** 'sending': until when the claim holds; 'retry': when the next attempt may start */
  notBefore: string;
  sentAt: string | null;
  /** the last failure's reason, as the mailer words it (nothing secret) */
  lastError: string | null;
}

export interface ReportStore {
  /**
   * A subscription; the same site, tenant, address and period already subscribed gives that one back
   * (`created` false), its confirmation renewed when `confirm` is given and it is still unconfirmed.
   */
  subscribe(input: NewReportSubscription): Promise<{ subscription: ReportSubscription; created: boolean }>;
  getSubscription(id: string): Promise<ReportSubscription | null>;
  /** A site's subscriptions, oldest first. */
  listSubscriptions(siteId: string): Promise<ReportSubscription[]>;
  /** Every confirmed subscription, for the sweep (oldest first). */
  confirmedSubscriptions(): Promise<ReportSubscription[]>;
  /** Confirms the unconfirmed, unexpired subscription whose link secret hashes to this; null when none. */
  confirm(secretHash: string, now: string): Promise<ReportSubscription | null>;
  /** Removes a subscription and its deliveries; false when there was none. */
  unsubscribe(id: string): Promise<boolean>;
  /**
   * Takes the delivery of (subscription, period) for one attempt, until `leaseUntil`: a new row, a
   * retry whose time came, or a claim whose holder let it lapse (it died between send and record: the
   * one duplicate a crash can cost). Null: sent, failed for good, held by another, or not yet due again.
   */
  claimDelivery(subscriptionId: string, periodStart: string, now: string, leaseUntil: string): Promise<ReportDelivery | null>;
  /** The claimed attempt ended: sent, to be retried at `retryAt`, or failed for good (retryAt null). */
  settleDelivery(
    subscriptionId: string,
    periodStart: string,
    outcome: { sent: true; now: string } | { sent: false; reason: string; retryAt: string | null },
  ): Promise<void>;
  /** The deliveries of a subscription, newest period first. */
  listDeliveries(subscriptionId: string): Promise<ReportDelivery[]>;
}
