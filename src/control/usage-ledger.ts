// UsageLedger over Kysely. The cap is enforced by one conditional UPDATE, so it holds however
// many callers race, in one process or many, on any dialect that runs single statements atomically.
import { sql, type ExpressionBuilder, type Kysely, type QueryResult } from 'kysely';
import { queryTemplate } from './query-template.js';
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
  // The request path's statements (reserve, commit, release on every metered request; used on
  // /v1/usage/current), compiled once: see query-template.ts.
  private readonly q;

  constructor(private readonly db: Kysely<ControlDB>) {
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
      used: queryTemplate(2, (workspaceId: string, period: string) => db.selectFrom('usage').select('used').where(key(workspaceId, period))),
    };
  }

  async reserve(input: TermsInput): Promise<Reservation | null> {
    const { workspaceId, period, units, included, hardCap } = checkTerms(input);
    if (units > hardCap) return null;

    // The period row carries the terms in force now, so history shows each month's own terms.
    // Fast path, one statement: the row exists and the units fit, so it takes the units and the
    // terms together. Otherwise (no row yet, or a refusal, which still records the terms) the
    // upsert runs and the conditional update decides; each statement is atomic on its own.
    if (updatedOne(await this.db.executeQuery(this.q.reserveWithTerms(workspaceId, period, units, included, hardCap))))
      return { workspaceId, period, units };
    await this.ensurePeriod(workspaceId, period, included, hardCap);
    return updatedOne(await this.db.executeQuery(this.q.reserve(workspaceId, period, units))) ? { workspaceId, period, units } : null;
  }

  async charge(input: TermsInput): Promise<number | null> {
    const { workspaceId, period, units, included, hardCap } = checkTerms(input);
    if (units > hardCap) return null;
    const run = () => this.db.executeQuery(this.q.chargeWithTerms(workspaceId, period, units, included, hardCap));
    let row = (await run()).rows[0];
    if (!row) {
      // No row yet, or a refusal: make sure the row exists, then the conditional update decides.
      await this.ensurePeriod(workspaceId, period, included, hardCap);
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

  /** Throws when the period holds fewer reserved units than the reservation (unknown or already settled). */
  async commit(r: Reservation): Promise<number> {
    const period = checkPeriod(r.period);
    const units = checkCount('units', r.units);
    const row = (await this.db.executeQuery(this.q.commit(r.workspaceId, period, units))).rows[0];
    if (!row) throw new Error(`no reservation of ${units} units for workspace ${r.workspaceId} in ${period}`);
    return Number(row.used);
  }

  /** Never throws for an unknown reservation: it runs on failure paths and must not hide their error. */
  async release(r: Reservation): Promise<void> {
    const period = checkPeriod(r.period);
    const units = checkCount('units', r.units);
    await this.db.executeQuery(this.q.release(r.workspaceId, period, units));
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
    const row = (await this.db.executeQuery(this.q.used(workspaceId, checkPeriod(period)))).rows[0];
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
