// Action rows (actions report): occurrences and distinct sessions of the eligible actions, grouped.
// Eligible (DESIGN 4, spec "Actions"): the simple actions over the whole window; every other action
// only inside the actions_advanced section's counting window (null: never, e.g. a strict site).
import { MEANINGFUL_FAMILIES, SIMPLE_ACTIONS, type ActionFamily } from '../../../domain/events.js';
import type { MsWindow } from '../../../domain/availability.js';
import { ACTION_ATTRIBUTES, type ActionIdentity } from '../action-key.js';
import type { ReportScope } from '../report-scope.js';
import type { Dialect } from '../../../engines/sql/dialect.js';
import { ReportSql } from './report-sql.js';
import type { CompiledReportQuery } from './report-query-runner.js';

export interface ActionSelection {
  scope: ReportScope;
  window: MsWindow;
  advanced: MsWindow | null;
  family?: ActionFamily;
  action?: ActionIdentity;
}

/** Grouping keys of an action-row query. `action` = the ActionIdentity columns. */
export type ActionGroupKey = 'day' | 'family' | 'action' | 'page' | 'channel' | 'device' | 'country' | 'browser';

export const IDENTITY_COLUMNS = ['family', 'action_name', ...ACTION_ATTRIBUTES] as const;

const SESSION_COLUMN: Partial<Record<ActionGroupKey, string>> = {
  channel: 'channel',
  device: 'device_type',
  country: 'country',
  browser: 'browser_family',
};

function where(q: ReportSql, sel: ActionSelection): string[] {
  const w = [...q.eventScope('e', sel.scope, sel.window.startMs, sel.window.endMs), `${q.col('e', 'type')} = ${q.v('action')}`];
  const simple = q.inList(q.col('e', 'action_name'), SIMPLE_ACTIONS);
  if (sel.advanced) {
    const ts = q.col('e', 'ts_ms');
    w.push(`(${simple} OR (${ts} >= ${q.v(sel.advanced.startMs)} AND ${ts} <= ${q.v(sel.advanced.endMs)}))`);
  } else {
    w.push(simple);
  }
  if (sel.family) w.push(q.eq(q.col('e', 'family'), sel.family));
  if (sel.action) for (const c of IDENTITY_COLUMNS) w.push(q.eq(q.col('e', c), sel.action[c]));
  return w;
}

/**
 * Columns: one per group key (`day` as bucket ms, `action` as the identity columns, the others as
 * `g_<key>`), then `sessions` (distinct sessions) and `occurrences` (events).
 */
export function compileActionRows(d: Dialect, sel: ActionSelection, group: readonly ActionGroupKey[]): CompiledReportQuery {
  const q = new ReportSql(d);
  const cols: string[] = [];
  const keys: string[] = [];
  let join = false;
  for (const g of group) {
    if (g === 'day') {
      cols.push(`${q.dayBucket(q.col('e', 'ts_ms'))} AS g_day`);
      keys.push('g_day');
    } else if (g === 'action') {
      for (const c of IDENTITY_COLUMNS) {
        cols.push(`${q.col('e', c)} AS ${c}`);
        keys.push(c);
      }
    } else if (g === 'family' || g === 'page') {
      cols.push(`${q.col('e', g === 'family' ? 'family' : 'path_canon')} AS g_${g}`);
      keys.push(`g_${g}`);
    } else {
      join = true;
      cols.push(`${q.col('s', SESSION_COLUMN[g]!)} AS g_${g}`);
      keys.push(`g_${g}`);
    }
  }
  const w = where(q, sel);
  cols.push(`${q.int(q.d.countDistinct(q.col('e', 'session_id')))} AS sessions`, `${q.int('count(*)')} AS occurrences`);
  let from = q.table('events', 'e');
  if (join) from += ` LEFT JOIN ${q.table('sessions', 's')} ON ${q.col('s', 'session_id')} = ${q.col('e', 'session_id')}`;
  let sql = `SELECT ${cols.join(', ')} FROM ${from} WHERE ${w.join(' AND ')}`;
  if (keys.length) sql += ` GROUP BY ${keys.join(', ')}`;
  return { sql, params: q.params };
}

/**
 * The actions totals of a selection (optionally per UTC day): sessions with a meaningful action,
 * meaningful occurrences, sessions with an error, sessions with instrumentation.
 */
export function compileActionTotals(d: Dialect, sel: ActionSelection, byDay: boolean): CompiledReportQuery {
  const q = new ReportSql(d);
  const fam = q.col('e', 'family');
  const sid = q.col('e', 'session_id');
  const meaningful = q.inList(fam, MEANINGFUL_FAMILIES);
  const errors = q.eq(fam, 'errors');
  const instr = q.eq(fam, 'instrumentation');
  const distinctIf = (cond: string) => q.int(q.d.countDistinct(`CASE WHEN ${cond} THEN ${sid} END`));
  const cols = [
    `${distinctIf(meaningful)} AS meaningful_sessions`,
    `${q.int(`sum(CASE WHEN ${meaningful} THEN 1 ELSE 0 END)`)} AS meaningful_occurrences`,
    `${distinctIf(errors)} AS error_sessions`,
    `${distinctIf(instr)} AS instrumentation_sessions`,
  ];
  if (byDay) cols.unshift(`${q.dayBucket(q.col('e', 'ts_ms'))} AS g_day`);
  const w = where(q, sel);
  let sql = `SELECT ${cols.join(', ')} FROM ${q.table('events', 'e')} WHERE ${w.join(' AND ')}`;
  if (byDay) sql += ' GROUP BY g_day';
  return { sql, params: q.params };
}
