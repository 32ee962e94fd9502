// UsageLedger over Kysely. The cap is enforced by one conditional UPDATE, so it holds however
// many callers race, in one process or many, on any dialect that runs single statements atomically.
// Each reservation is also a leased row (reservations), written in the same transaction as the
// counter, so the units of a request whose process died can be found and given back.
import { randomBytes } from 'node:crypto';
import { sql, type CompiledQuery, type ExpressionBuilder, type Kysely, type QueryResult } from 'kysely';
import { kyselyRunner, queryTemplate, type RunQuery } from './query-template.js';
import { ReservationLostError, type Reservation, type UsageLedger, type UsageRecord } from '../ports/usage-ledger.js';
import { systemClock, type Clock } from '../domain/clock.js';
import { randomBase62, type RandomBytes } from '../domain/tokens.js';
import { currentLeaseOwner, isLocalOwnerAlive, type LeaseOwner } from './lease-owner.js';
import type { ControlDB } from './schema.js';

const PERIOD_RE = /^\d{4}-(0[1-9]|1[0-2])$/;

/**
 * How long a reservation is held when its request neither commits nor releases it: the analytics
 * deadline (FOOTFALL_QUERY_TIMEOUT_MS, which bounds a metered run) plus this margin for the rest of
 * the request (control-plane round trips, serialization, a GC pause). docs/metering.md.
 */
export const LEASE_MARGIN_MS = 60_000;
export const DEFAULT_LEASE_MS = 10_000 + LEASE_MARGIN_MS;

/** A reservation outlives the longest metered run (bounded by the query timeout) by LEASE_MARGIN_MS. */
export function leaseMsFor(config: { queryTimeoutMs?: number }): number {
  return (config.queryTimeoutMs ?? 10_000) + LEASE_MARGIN_MS;
}

/** Dead-owner checks (a pid probe per owner) run at most this often on the refusal path. */
const DEAD_OWNER_CHECK_INTERVAL_MS = 1_000;

/**
 * Runs `first`, then `second` only when `first` changed exactly one row, as one transaction; returns
 * `second`'s result, or null when `first` changed no row (nothing was written then). The default
 * runs a Kysely transaction; the SQLite control plane passes a synchronous one (sqlite/dialect.ts).
 */
export type PairRunner = (first: CompiledQuery, second: CompiledQuery) => Promise<QueryResult<unknown> | null>;

export interface UsageLedgerOptions {
  /** lease length in ms (default DEFAULT_LEASE_MS) */
  leaseMs?: number;
  clock?: Clock;
  random?: RandomBytes;
  owner?: LeaseOwner;
  /**
   * Reclaim the leases of dead processes on this host at once (SQLite: every process sharing the
   * file runs on this machine). Off for a shared PostgreSQL, where leases of other machines' processes
   * cannot be checked and end by expiry.
   */
  reclaimDeadLocalOwners?: boolean;
  /** a faster PairRunner for this database, falling back to `fallback` when it cannot run now */
  pairRunner?: (fallback: PairRunner) => PairRunner;
  /** how the single statements of the request path (charge, used) run, given Kysely's way */
  runner?: (fallback: RunQuery) => RunQuery;
  /** how the charge statement runs, given Kysely's way (default: as `runner`; SQLite commits a turn's charges together) */
  chargeRunner?: (fallback: RunQuery) => RunQuery;
}

function checkPeriod(period: unknown): string {
  if (typeof period !== 'string' || !PERIOD_RE.test(period)) throw new RangeError(`usage period must be YYYY-MM, got "${String(period)}"`);
  return period;
}

function checkCount(what: string, n: unknown): number {
  if (!Number.isSafeInteger(n) || (n as number) < 0) throw new RangeError(`${what} must be a non-negative integer, got ${String(n)}`);
  return n as number;
}

export class KyselyUsageLedger implements UsageLedger {
  // The request path's statements (reserve, commit, release on every metered request; used on
  // /v1/usage/current), compiled once: see query-template.ts.
  private readonly q;
  private readonly leaseMs: number;
  private readonly clock: Clock;
  private readonly random: RandomBytes;
  private readonly owner: LeaseOwner;
  private readonly reclaimDeadLocalOwners: boolean;
  private readonly pair: PairRunner;
  private readonly run: RunQuery;
  private readonly runCharge: RunQuery;
  private lastDeadOwnerCheck = -Infinity;

  constructor(
    private readonly db: Kysely<ControlDB>,
    opts: UsageLedgerOptions = {},
  ) {
    this.leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
    if (!Number.isSafeInteger(this.leaseMs) || this.leaseMs < 1)
      throw new RangeError(`lease must be a positive integer of ms, got ${this.leaseMs}`);
    this.clock = opts.clock ?? systemClock;
    this.random = opts.random ?? randomBytes;
    this.owner = opts.owner ?? currentLeaseOwner();
    this.reclaimDeadLocalOwners = opts.reclaimDeadLocalOwners ?? false;
    const inTransaction: PairRunner = (first, second) =>
      db.transaction().execute(async (trx) => (updatedOne(await trx.executeQuery(first)) ? trx.executeQuery(second) : null));
    this.pair = opts.pairRunner ? opts.pairRunner(inTransaction) : inTransaction;
    this.run = opts.runner ? opts.runner(kyselyRunner(db)) : kyselyRunner(db);
    this.runCharge = opts.chargeRunner ? opts.chargeRunner(kyselyRunner(db)) : this.run;
    const key = (workspaceId: string, period: string) => (eb: ExpressionBuilder<ControlDB, 'usage'>) =>
      eb.and([eb('workspace_id', '=', workspaceId), eb('period', '=', period)]);
    this.q = {
      // Takes the units and records the terms in force, when they fit under the new cap.
      reserveWithTerms: queryTemplate(5, (workspaceId: string, period: string, units: number, included: number, hardCap: number) =>
        db
          .updateTable('usage')
          .set((eb) => ({ reserved: eb('reserved', '+', units), included, hard_cap: hardCap }))
          .where(key(workspaceId, period))
          .where(sql<boolean>`used + reserved + ${units} <= ${hardCap}`),
      ),
      reserve: queryTemplate(3, (workspaceId: string, period: string, units: number) =>
        db
          .updateTable('usage')
          .set((eb) => ({ reserved: eb('reserved', '+', units) }))
          .where(key(workspaceId, period))
          .where(sql<boolean>`used + reserved + ${units} <= hard_cap`),
      ),
      // reserve + commit in one statement, with the terms, for work that cannot fail any more
      chargeWithTerms: queryTemplate(5, (workspaceId: string, period: string, units: number, included: number, hardCap: number) =>
        db
          .updateTable('usage')
          .set((eb) => ({ used: eb('used', '+', units), included, hard_cap: hardCap }))
          .where(key(workspaceId, period))
          .where(sql<boolean>`used + reserved + ${units} <= ${hardCap}`)
          .returning('used'),
      ),
      commit: queryTemplate(3, (workspaceId: string, period: string, units: number) =>
        db
          .updateTable('usage')
          .set((eb) => ({ reserved: eb('reserved', '-', units), used: eb('used', '+', units) }))
          .where(key(workspaceId, period))
          .where('reserved', '>=', units)
          .returning('used'),
      ),
      release: queryTemplate(3, (workspaceId: string, period: string, units: number) =>
        db
          .updateTable('usage')
          .set((eb) => ({ reserved: eb('reserved', '-', units) }))
          .where(key(workspaceId, period))
          .where('reserved', '>=', units),
      ),
      used: queryTemplate(2, (workspaceId: string, period: string) =>
        db.selectFrom('usage').select('used').where(key(workspaceId, period)),
      ),
      takeLease: queryTemplate(
        9,
        (
          id: string,
          workspaceId: string,
          period: string,
          units: number,
          owner: string,
          host: string,
          pid: number,
          started: string,
          expiresAt: number,
        ) =>
          db.insertInto('reservations').values({
            id,
            workspace_id: workspaceId,
            period,
            units,
            owner,
            owner_host: host,
            owner_pid: pid,
            owner_started: started,
            expires_at: expiresAt,
          }),
      ),
      // The lease row names its units and period, so a reservation object cannot settle another's.
      dropLease: queryTemplate(4, (id: string, workspaceId: string, period: string, units: number) =>
        db
          .deleteFrom('reservations')
          .where('id', '=', id)
          .where('workspace_id', '=', workspaceId)
          .where('period', '=', period)
          .where('units', '=', units),
      ),
    };
  }

  async reserve(input: TermsInput): Promise<Reservation | null> {
    const { workspaceId, period, units, included, hardCap } = checkTerms(input);
    if (units > hardCap) return null;
    const r: Reservation = { id: `rsv_${randomBase62(this.random, 22)}`, workspaceId, period, units };

    // The period row carries the terms in force now, so history shows each month's own terms.
    // Fast path: the row exists and the units fit, so it takes the units and the terms together.
    // Otherwise (no row yet, or a refusal, which still records the terms) the upsert runs and the
    // conditional update decides; each statement is atomic on its own.
    if (await this.lease(r, this.q.reserveWithTerms(workspaceId, period, units, included, hardCap))) return r;
    await this.ensurePeriod(workspaceId, period, included, hardCap);
    if (await this.lease(r, this.q.reserve(workspaceId, period, units))) return r;
    // Before refusing: units held by dead processes or expired leases may be what fills the cap.
    // Try again even when another caller's reclaim got them first: it finished after our refusal.
    await this.reclaim();
    return (await this.lease(r, this.q.reserve(workspaceId, period, units))) ? r : null;
  }

  /** Runs the conditional counter update and, when it took the units, records the lease with it. */
  private async lease(r: Reservation, update: CompiledQuery): Promise<boolean> {
    const o = this.owner;
    const expiresAt = this.clock.now().getTime() + this.leaseMs;
    const insert = this.q.takeLease(r.id, r.workspaceId, r.period, r.units, o.id, o.host, o.pid, o.started, expiresAt);
    return (await this.pair(update, insert)) !== null;
  }

  async charge(input: TermsInput): Promise<number | null> {
    const { workspaceId, period, units, included, hardCap } = checkTerms(input);
    if (units > hardCap) return null;
    const run = () => this.runCharge(this.q.chargeWithTerms(workspaceId, period, units, included, hardCap));
    let row = (await run()).rows[0];
    if (!row) {
      // No row yet, or a refusal: make sure the row exists, then the conditional update decides.
      await this.ensurePeriod(workspaceId, period, included, hardCap);
      row = (await run()).rows[0];
    }
    if (!row) {
      await this.reclaim();
      row = (await run()).rows[0];
    }
    return row ? Number(row.used) : null;
  }

  private async ensurePeriod(workspaceId: string, period: string, included: number, hardCap: number): Promise<void> {
    await this.db
      .insertInto('usage')
      .values({ workspace_id: workspaceId, period, used: 0, reserved: 0, included, hard_cap: hardCap })
      .onConflict((oc) => oc.columns(['workspace_id', 'period']).doUpdateSet({ included, hard_cap: hardCap }))
      .execute();
  }

  /** Throws ReservationLostError when the lease is gone (settled already, reclaimed, or never taken). */
  async commit(r: Reservation): Promise<number> {
    const period = checkPeriod(r.period);
    const units = checkCount('units', r.units);
    const done = await this.pair(this.q.dropLease(String(r.id), r.workspaceId, period, units), this.q.commit(r.workspaceId, period, units));
    if (!done) throw new ReservationLostError(`no lease ${String(r.id)} of ${units} units for workspace ${r.workspaceId} in ${period}`);
    const row = done.rows[0] as { used: unknown } | undefined;
    // A lease without its units in the counter means the store was changed by hand.
    if (!row) throw new Error(`usage of workspace ${r.workspaceId} in ${period} held fewer reserved units than lease ${r.id}`);
    return Number(row.used);
  }

  /** Never throws for an unknown or reclaimed lease: it runs on failure paths and must not hide their error. */
  async release(r: Reservation): Promise<void> {
    const period = checkPeriod(r.period);
    const units = checkCount('units', r.units);
    await this.pair(this.q.dropLease(String(r.id), r.workspaceId, period, units), this.q.release(r.workspaceId, period, units));
  }

  /**
   * Deletes the expired leases and those of dead owners on this host, and takes their units off the
   * reserved counters, in one transaction: a lease and its units leave together or not at all.
   */
  async reclaim(): Promise<number> {
    const now = this.clock.now().getTime();
    const dead = await this.deadLocalOwners();
    return this.db.transaction().execute(async (trx) => {
      const gone = await trx
        .deleteFrom('reservations')
        .where((eb) => {
          const expired = eb('expires_at', '<=', now);
          return dead.length ? eb.or([expired, eb.and([eb('owner_host', '=', this.owner.host), eb('owner', 'in', dead)])]) : expired;
        })
        .returning(['workspace_id', 'period', 'units'])
        .execute();
      const byPeriod = new Map<string, { workspaceId: string; period: string; units: number }>();
      for (const g of gone) {
        const k = `${g.workspace_id}\u0000${g.period}`;
        const sum = byPeriod.get(k) ?? { workspaceId: g.workspace_id, period: g.period, units: 0 };
        sum.units += Number(g.units);
        byPeriod.set(k, sum);
      }
      let total = 0;
      for (const p of byPeriod.values()) {
        // Never below zero, even if the counter was changed by hand.
        await trx
          .updateTable('usage')
          .set({ reserved: sql`case when reserved >= ${p.units} then reserved - ${p.units} else 0 end` })
          .where('workspace_id', '=', p.workspaceId)
          .where('period', '=', p.period)
          .execute();
        total += p.units;
      }
      return total;
    });
  }

  /** Owners on this host, other than this ledger, whose process is gone (checked at most once a second). */
  private async deadLocalOwners(): Promise<string[]> {
    if (!this.reclaimDeadLocalOwners) return [];
    const nowMs = Date.now();
    if (nowMs - this.lastDeadOwnerCheck < DEAD_OWNER_CHECK_INTERVAL_MS) return [];
    this.lastDeadOwnerCheck = nowMs;
    const owners = await this.db
      .selectFrom('reservations')
      .select(['owner', 'owner_pid', 'owner_started'])
      .distinct()
      .where('owner_host', '=', this.owner.host)
      .where('owner', '<>', this.owner.id)
      .execute();
    return owners.filter((o) => !isLocalOwnerAlive({ pid: Number(o.owner_pid), started: o.owner_started })).map((o) => o.owner);
  }

  async history(workspaceId: string, fromPeriod: string, toPeriod: string): Promise<UsageRecord[]> {
    const from = checkPeriod(fromPeriod);
    const to = checkPeriod(toPeriod);
    const rows = await this.db
      .selectFrom('usage')
      .select(['period', 'used', 'included', 'hard_cap'])
      .where('workspace_id', '=', workspaceId)
      .where('period', '>=', from)
      .where('period', '<=', to)
      .orderBy('period')
      .execute();
    return rows.map((r) => ({
      period: r.period,
      units_used: Number(r.used),
      units_included: Number(r.included),
      hard_cap_units: Number(r.hard_cap),
    }));
  }

  async used(workspaceId: string, period: string): Promise<number> {
    const row = (await this.run(this.q.used(workspaceId, checkPeriod(period)))).rows[0];
    return row ? Number(row.used) : 0;
  }
}

type TermsInput = { workspaceId: string; period: string; units: number; included: number; hardCap: number };

function checkTerms(input: TermsInput): TermsInput {
  return {
    workspaceId: input.workspaceId,
    period: checkPeriod(input.period),
    units: checkCount('units', input.units),
    included: checkCount('included units', input.included),
    hardCap: checkCount('hard cap', input.hardCap),
  };
}

function updatedOne(result: QueryResult<unknown>): boolean {
  return Number(result.numAffectedRows ?? 0n) === 1;
}
