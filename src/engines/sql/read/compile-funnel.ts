// The funnel read (docs/metrics.md "Funnels") for every SQL engine, in plain SQL that ClickHouse 18.16
// runs too (no window functions, no WITH subqueries): the query API's compiler gives the scope, the
// event and visit filters and the goal rules (a page step is a PAGEVIEW_MATCH goal's rule, an event
// step an EVENT_MATCH's without filters).
//
// - the sessions: those starting in the window, in scope, that pass the visit filters;
// - level 1: each of them with a kept event (scope, event filters) matching step 1, and its earliest
//   such time q_t1;
// - level k: level k-1 joined to the session's kept events again; q_tk is the earliest time of a
//   step-k match not before q_t(k-1) (greedy: the earliest reach of every step is the one that leaves
//   the most for the next). Never reached: a sentinel after every time, so that no later step
//   compares as reached either, and no NULL is grouped (GROUP BY of Nullable keys differs by engine);
// - the answer: per UTC day of the sessions' start, distinct visitor keys of the sessions reaching each
//   step, summed over the days (keys rotate at 00:00 UTC, and sessions never cross it).
// Levels nest rather than repeat: step k's relation holds every earlier step's time, so the statement
// grows with the steps, not with their square. One row of sums, no order: partial results of several
// servers add up (each holds whole sessions and visitors).
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
   * start: no session starts before it) that match one of `steps`, as q_sid, q_ts and q_m (1 when the
   * event matches the last of them).
   */
  private kept(steps: readonly number[]): string {
    const w = { startMs: this.req.window.startMs, endMs: this.dayWindow.endMs };
    const sid = this.col('e', 'session_id');
    const where = [
      ...this.scoped('e', 'ts_ms', 'events', w),
      ...this.filters.event.map((f) => this.condition(f, (dim) => this.eventDim(dim, 'e'), sid)),
      `(${steps.map((k) => this.matches(k)).join(' OR ')})`,
    ];
    const cols = [`${sid} AS q_sid`, `${this.d.toInt64(this.col('e', 'ts_ms'))} AS q_ts`, `${this.matches(steps.at(-1)!)} AS q_m`];
    return `SELECT ${cols.join(', ')} FROM ${this.table(this.t.events, 'e')} WHERE ${where.join(' AND ')}`;
  }

  /**
   * The relation of level k: q_sid, q_vk, q_day and q_t1..q_tk of every session reaching step 1.
   * Two derived tables joined USING their one shared name, every other name unique and unqualified:
   * the shape ClickHouse 18.16 joins right (with WHERE or GROUP BY on a joined table's columns it
   * can fail, "Size of filter doesn't match size of column", or group empty keys).
   */
  private level(k: number): string {
    if (k === 1)
      return (
        `SELECT q_sid, q_vk, q_day, ${this.d.toInt64('min(q_ts)')} AS ${timeCol(1)}` +
        ` FROM (${this.kept([1])}) AS x INNER JOIN (${this.sessions()}) AS p USING (q_sid) GROUP BY q_sid, q_vk, q_day`
      );
    const carried = ['q_sid', 'q_vk', 'q_day', ...Array.from({ length: k - 1 }, (_, i) => timeCol(i + 1))];
    const never = this.d.toInt64(int(NEVER));
    const reached = `min(CASE WHEN ${this.d.isTrue('q_m')} AND q_ts >= ${timeCol(k - 1)} THEN q_ts ELSE ${never} END)`;
    // Only the events that can matter: step k's matches, and step 1's, which every session here holds
    // (so none drops out of the inner join).
    return (
      `SELECT ${carried.join(', ')}, ${this.d.toInt64(reached)} AS ${timeCol(k)}` +
      ` FROM (${this.kept([1, k])}) AS x INNER JOIN (${this.level(k - 1)}) AS p USING (q_sid) GROUP BY ${carried.join(', ')}`
    );
  }

  compileFunnel(): CompiledRead {
    const n = this.steps.length;
    const perDay = this.steps.map((_, i) => {
      const k = i + 1;
      const key = k === 1 ? 'q_vk' : `CASE WHEN ${timeCol(k)} < ${this.d.toInt64(int(NEVER))} THEN q_vk END`;
      return `${this.d.countDistinct(key)} AS ${visitorsCol(k)}`;
    });
    const days = `SELECT q_day, ${perDay.join(', ')} FROM (${this.level(n)}) AS r GROUP BY q_day`;
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
