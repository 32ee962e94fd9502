// UsageLedger over Kysely. The cap is enforced by one conditional UPDATE, so it holds however
// many callers race, in one process or many, on any dialect that runs single statements atomically.
import { sql, type Kysely } from 'kysely';
import type { Reservation, UsageLedger, UsageRecord } from '../ports/usage-ledger.js';
import type { ControlDB } from './schema.js';

const PERIOD_RE = /^\d{4}-(0[1-9]|1[0-2])$/;

function checkPeriod(period: unknown): string {
  if (typeof period !== 'string' || !PERIOD_RE.test(period)) throw new RangeError(`usage period must be YYYY-MM, got "${String(period)}"`);
  return period;
}

function checkCount(what: string, n: unknown): number {
  if (!Number.isSafeInteger(n) || (n as number) < 0) throw new RangeError(`${what} must be a non-negative integer, got ${String(n)}`);
  return n as number;
}

export class KyselyUsageLedger implements UsageLedger {
  constructor(private readonly db: Kysely<ControlDB>) {}

  async reserve(input: { workspaceId: string; period: string; units: number; included: number; hardCap: number }): Promise<Reservation | null> {
    const period = checkPeriod(input.period);
    const units = checkCount('units', input.units);
    const included = checkCount('included units', input.included);
    const hardCap = checkCount('hard cap', input.hardCap);
    const { workspaceId } = input;
    if (units > hardCap) return null;

    // The period row carries the terms in force now, so history shows each month's own terms.
    await this.db
      .insertInto('usage')
      .values({ workspace_id: workspaceId, period, used: 0, reserved: 0, included, hard_cap: hardCap })
      .onConflict((oc) => oc.columns(['workspace_id', 'period']).doUpdateSet({ included, hard_cap: hardCap }))
      .execute();
    const result = await this.db
      .updateTable('usage')
      .set((eb) => ({ reserved: eb('reserved', '+', units) }))
      .where('workspace_id', '=', workspaceId)
      .where('period', '=', period)
      .where(sql<boolean>`used + reserved + ${units} <= hard_cap`)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1 ? { workspaceId, period, units } : null;
  }

  /** Throws when the period holds fewer reserved units than the reservation (unknown or already settled). */
  async commit(r: Reservation): Promise<number> {
    const period = checkPeriod(r.period);
    const units = checkCount('units', r.units);
    const row = await this.db
      .updateTable('usage')
      .set((eb) => ({ reserved: eb('reserved', '-', units), used: eb('used', '+', units) }))
      .where('workspace_id', '=', r.workspaceId)
      .where('period', '=', period)
      .where('reserved', '>=', units)
      .returning('used')
      .executeTakeFirst();
    if (!row) throw new Error(`no reservation of ${units} units for workspace ${r.workspaceId} in ${period}`);
    return Number(row.used);
  }

  /** Never throws for an unknown reservation: it runs on failure paths and must not hide their error. */
  async release(r: Reservation): Promise<void> {
    const period = checkPeriod(r.period);
    const units = checkCount('units', r.units);
    await this.db
      .updateTable('usage')
      .set((eb) => ({ reserved: eb('reserved', '-', units) }))
      .where('workspace_id', '=', r.workspaceId)
      .where('period', '=', period)
      .where('reserved', '>=', units)
      .execute();
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
    const row = await this.db
      .selectFrom('usage')
      .select('used')
      .where('workspace_id', '=', workspaceId)
      .where('period', '=', checkPeriod(period))
      .executeTakeFirst();
    return row ? Number(row.used) : 0;
  }
}
