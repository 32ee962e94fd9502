// The funnel read (docs/metrics.md "Funnels") for every SQL engine, in plain SQL that ClickHouse 18.16
// runs too (no window functions, no WITH subqueries): the query API's compiler gives the scope, the
// event and visit filters and the goal rules (a page step is a PAGEVIEW_MATCH goal's rule, an event
// step an EVENT_MATCH's without filters).
//
// - the sessions: those starting in the window, in scope, that pass the visit filters;
// - their kept events (scope, event filters) that match some step, read once and grouped per session:
//   q_t1 is the earliest step-1 match, and q_tk the earliest step-k match not before q_t(k-1), from the
//   list of the session's step-k times (greedy: the earliest reach of every step is the one that leaves
//   the most for the next; one event may serve two steps it matches). Never reached: a sentinel after
//   every time, so that no later step compares as reached either, and no NULL is grouped (GROUP BY of
//   Nullable keys differs by engine);
// - the answer: per UTC day of the sessions' start, distinct visitor keys of the sessions reaching each
//   step, summed over the days (keys rotate at 00:00 UTC, and sessions never cross it).
// One scan of the events whatever the steps (a join of the events per step cost about twice as much on
// both engines for three steps). One row of sums, no order: partial results of several servers add up
// (each holds whole sessions and visitors).
import { DAY_MS } from '../../../domain/report-range.js';
import type { FunnelStep } from '../../../domain/funnels.js';
import type { FunnelStepsRequest, NamedGoal } from '../../../ports/analytics-engine.js';
import type { Dialect } from '../dialect.js';
import type { ReadOptions } from './compile-actions.js';
import { QueryApiCompiler } from './compile-query-api.js';
import { toInt, type CompiledRead } from './read-rows.js';
import { int } from './sql-writer.js';

/** Later than any event's time (ms): "not reached". A safe integer, so int() writes it. */
const NEVER = 9_000_000_000_000_000;
const timeCol = (k: number) => `q_t${k}`;
const visitorsCol = (k: number) => `q_v${k}`;

/** A step as the goal rule it is (compile-query-api.ts goalMatch). */
function stepGoal(s: FunnelStep): NamedGoal {
  return s.kind === 'page'
    ? { name: '', type: 'PAGEVIEW_MATCH', pattern: s.pattern, filters: null }
    : { name: '', type: 'EVENT_MATCH', pattern: s.name, filters: null };
}

class FunnelCompiler extends QueryApiCompiler {
  constructor(
    d: Dialect,
    readonly funnel: FunnelStepsRequest,
    o: ReadOptions,
  ) {
    super(d, { ...funnel, groups: [], bucketing: null, atoms: ['visits'] }, o);
  }

  private get steps(): readonly FunnelStep[] {
    return this.funnel.steps;
  }

  /** Step k's rule (1-based) on events `e`, never NULL. */
  private matches(k: number, e = 'e'): string {
    return this.d.orFalse(this.goalMatch(stepGoal(this.steps[k - 1]), e));
  }

  /** The sessions the funnel counts: q_sid, their visitor key and UTC day. */
  private sessions(): string {
    const s = 's';
    const sid = this.col(s, 'session_id');
    const where = [
      ...this.scoped(s, 'start_ms', 'sessions', this.req.window),
      ...this.filters.visit.map((f) => this.condition(f, (dim) => this.visitDim(dim, s, null), sid)),
    ];
    const cols = [
      `${sid} AS q_sid`,
      `${this.col(s, 'visitor_key')} AS q_vk`,
      `${this.d.toInt64(this.d.intDiv(this.col(s, 'start_ms'), int(DAY_MS)))} AS q_day`,
    ];
    return `SELECT ${cols.join(', ')} FROM ${this.table(this.t.sessions, s)} WHERE ${where.join(' AND ')}`;
  }

  /**
   * Kept events (scope, event filters) over the days the sessions' events lie in (from the window's
   * start: no session starts before it) that match some step, read once and grouped per session: q_sid
   * and q_t1..q_tn. q_t1 is the earliest step-1 match; q_tk the earliest step-k match not before q_t(k-1),
   * from the list of the session's step-k times. Sessions without step 1 are left out.
   */
  private reachedPerSession(): string {
    const w = { startMs: this.req.window.startMs, endMs: this.dayWindow.endMs };
    const sid = this.col('e', 'session_id');
    const where = [
      ...this.scoped('e', 'ts_ms', 'events', w),
      ...this.filters.event.map((f) => this.condition(f, (dim) => this.eventDim(dim, 'e'), sid)),
      `(${this.steps.map((_, i) => this.matches(i + 1)).join(' OR ')})`,
    ];
    // bit k-1 set: the event matches step k
    const mask = this.steps.map((_, i) => `(CASE WHEN ${this.d.isTrue(this.matches(i + 1))} THEN ${2 ** i} ELSE 0 END)`).join(' + ');
    const events =
      `SELECT ${sid} AS q_sid, ${this.d.toInt64(this.col('e', 'ts_ms'))} AS q_ts, ${this.d.toInt64(mask)} AS q_m ` +
      `FROM ${this.table(this.t.events, 'e')} WHERE ${where.join(' AND ')}`;
    const never = this.d.toInt64(int(NEVER));
    const isStep = (i: number) => `${this.d.bitAnd('q_m', String(2 ** i))} != 0`;
    const times = this.steps.map((_, i) => {
      const t =
        i === 0
          ? `min(CASE WHEN ${isStep(0)} THEN q_ts ELSE ${never} END)`
          : this.d.leastFrom(this.d.listIf('q_ts', isStep(i)), timeCol(i), never);
      return `${this.d.toInt64(t)} AS ${timeCol(i + 1)}`;
    });
    return `SELECT q_sid, ${times.join(', ')} FROM (${events}) AS k GROUP BY q_sid HAVING ${timeCol(1)} < ${never}`;
  }

  /**
   * q_sid, q_vk, q_day and q_t1..q_tn of every counted session (NEVER where the step is not reached). Two
   * derived tables joined USING their one shared name, every other name unique and unqualified: the shape
   * ClickHouse 18.16 joins right (with WHERE or GROUP BY on a joined table's columns it can fail, "Size of
   * filter doesn't match size of column", or group empty keys).
   */
  private reached(): string {
    const times = this.steps.map((_, i) => timeCol(i + 1));
    return `SELECT q_sid, q_vk, q_day, ${times.join(', ')} FROM (${this.reachedPerSession()}) AS x INNER JOIN (${this.sessions()}) AS p USING (q_sid)`;
  }

  compileFunnel(): CompiledRead {
    const perDay = this.steps.map((_, i) => {
      const k = i + 1;
      const key = k === 1 ? 'q_vk' : `CASE WHEN ${timeCol(k)} < ${this.d.toInt64(int(NEVER))} THEN q_vk END`;
      return `${this.d.countDistinct(key)} AS ${visitorsCol(k)}`;
    });
    const days = `SELECT q_day, ${perDay.join(', ')} FROM (${this.reached()}) AS r GROUP BY q_day`;
    const cols = this.steps.map((_, i) => `${this.d.toInt64(`sum(v.${visitorsCol(i + 1)})`)} AS ${visitorsCol(i + 1)}`);
    const columns = this.steps.map((_, i) => visitorsCol(i + 1));
    return {
      sql: `SELECT ${cols.join(', ')} FROM (${days}) AS v`,
      params: this.params,
      columns,
      text: [],
      keys: [],
      merge: Object.fromEntries(columns.map((c) => [c, 'sum'])),
    };
  }
}

export function compileFunnelSteps(d: Dialect, req: FunnelStepsRequest, options: ReadOptions = {}): CompiledRead {
  if (req.steps.length < 1) throw new RangeError('a funnel read needs at least one step');
  return new FunnelCompiler(d, req, options).compileFunnel();
}

/** Visitors per step from the one row of compileFunnelSteps (or its merge); no row: none. */
export function decodeFunnelSteps(req: FunnelStepsRequest, rows: readonly Record<string, unknown>[]): number[] {
  return req.steps.map((_, i) => toInt(rows[0]?.[visitorsCol(i + 1)]));
}
