// Action reads (actions report): occurrences and distinct sessions of the eligible actions, grouped,
// and the actions totals. Eligible (docs/product.md §4.9): the simple actions over the whole
// window; every other action only inside the selection's `advanced` window (null: never).
// Result columns are prefixed (o_, a_) so none is named like a table column: ClickHouse resolves a
// column name in WHERE to a SELECT alias of the same name.
import { ACTION_ATTRIBUTES, type ActionIdentity } from '../../../domain/action-key.js';
import { MEANINGFUL_FAMILIES, SIMPLE_ACTIONS, type ActionFamily } from '../../../domain/events.js';
import type {
  ActionGroupKey,
  ActionRow,
  ActionRowsRequest,
  ActionSelection,
  ActionTotals,
  ActionTotalsRequest,
} from '../../../ports/analytics-engine.js';
import { DEFAULT_TABLES, type TableNames } from './compile-query.js';
import type { Dialect } from '../dialect.js';
import { toInt, toStr, type CompiledRead } from './read-rows.js';
import { SqlWriter, type RowFilter } from './sql-writer.js';

export interface ReadOptions {
  tables?: TableNames;
  rowFilter?: RowFilter;
}

const IDENTITY_COLUMNS = ['family', 'action_name', ...ACTION_ATTRIBUTES] as const;

const SESSION_COLUMN: Partial<Record<ActionGroupKey, string>> = {
  channel: 'channel',
  device: 'device_type',
  country: 'country',
  browser: 'browser_family',
};

function where(q: SqlWriter, sel: ActionSelection): string[] {
  const w = [
    ...q.inScope('e', 'ts_ms', sel.scope, sel.window.startMs, sel.window.endMs),
    ...q.visible(['events', 'e']),
    `${q.col('e', 'type')} = ${q.v('action')}`,
  ];
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

/** Columns: the group keys (o_day, a_<identity column>, o_<key>), then o_sessions and o_occurrences. */
export function compileActionRows(d: Dialect, req: ActionRowsRequest, options: ReadOptions = {}): CompiledRead {
  const t = options.tables ?? DEFAULT_TABLES;
  const q = new SqlWriter(d, options.rowFilter);
  const cols: string[] = [];
  const keys: string[] = [];
  const text: string[] = [];
  const joined: string[] = [];
  for (const g of req.groupBy) {
    if (g === 'day') {
      cols.push(`${q.dayBucket(q.col('e', 'ts_ms'))} AS o_day`);
      keys.push('o_day');
    } else if (g === 'action') {
      for (const c of IDENTITY_COLUMNS) {
        cols.push(`${q.col('e', c)} AS a_${c}`);
        keys.push(`a_${c}`);
        text.push(`a_${c}`);
      }
    } else if (g === 'family' || g === 'page') {
      cols.push(`${q.col('e', g === 'family' ? 'family' : 'path_canon')} AS o_${g}`);
      keys.push(`o_${g}`);
      text.push(`o_${g}`);
    } else {
      joined.push(SESSION_COLUMN[g]!);
      cols.push(`${q.col('s', SESSION_COLUMN[g]!)} AS o_${g}`);
      keys.push(`o_${g}`);
      text.push(`o_${g}`);
    }
  }
  const w = where(q, req.selection);
  cols.push(`${q.int64(d.countDistinct(q.col('e', 'session_id')))} AS o_sessions`, `${q.int64('count(*)')} AS o_occurrences`);
  let from = q.table(t.events, 'e');
  if (joined.length) {
    const { scope, window } = req.selection;
    from += ` LEFT JOIN ${q.sessionsOf(t.sessions, scope, window.startMs, window.endMs, joined)} AS s ON ${q.col('s', 'session_id')} = ${q.col('e', 'session_id')}`;
  }
  let sql = `SELECT ${cols.join(', ')} FROM ${from} WHERE ${w.join(' AND ')}`;
  if (keys.length) sql += ` GROUP BY ${keys.join(', ')}`;
  return {
    ...q.done(sql),
    columns: [...keys, 'o_sessions', 'o_occurrences'],
    text,
    keys,
    merge: { o_sessions: 'sum', o_occurrences: 'sum' },
  };
}

export function decodeActionRows(req: ActionRowsRequest, rows: readonly Record<string, unknown>[]): ActionRow[] {
  return rows.map((r) => {
    const out: ActionRow = { sessions: toInt(r.o_sessions), occurrences: toInt(r.o_occurrences) };
    for (const g of req.groupBy) {
      if (g === 'day') out.day = toInt(r.o_day);
      else if (g === 'action') {
        const id = {} as Record<(typeof IDENTITY_COLUMNS)[number], string | null>;
        for (const c of IDENTITY_COLUMNS) id[c] = toStr(r[`a_${c}`]);
        // every action event is stored with its family and action name, so neither reads back NULL
        out.action = id as ActionIdentity;
      } else if (g === 'family') out.family = toStr(r.o_family) as ActionFamily | null;
      else out[g] = toStr(r[`o_${g}`]);
    }
    return out;
  });
}

/**
 * The actions totals of a selection (optionally per UTC day): sessions with a meaningful action,
 * meaningful occurrences, sessions with an error, sessions with instrumentation.
 */
export function compileActionTotals(d: Dialect, req: ActionTotalsRequest, options: ReadOptions = {}): CompiledRead {
  const t = options.tables ?? DEFAULT_TABLES;
  const q = new SqlWriter(d, options.rowFilter);
  const fam = q.col('e', 'family');
  const sid = q.col('e', 'session_id');
  const meaningful = q.inList(fam, MEANINGFUL_FAMILIES);
  const distinctIf = (cond: string) => q.int64(d.countDistinct(`CASE WHEN ${cond} THEN ${sid} END`));
  const cols = [
    `${distinctIf(meaningful)} AS o_meaningful_sessions`,
    `${q.int64(q.sumIf(meaningful))} AS o_meaningful_occurrences`,
    `${distinctIf(q.eq(fam, 'errors'))} AS o_error_sessions`,
    `${distinctIf(q.eq(fam, 'instrumentation'))} AS o_instrumentation_sessions`,
  ];
  if (req.byDay) cols.unshift(`${q.dayBucket(q.col('e', 'ts_ms'))} AS o_day`);
  const w = where(q, req.selection);
  let sql = `SELECT ${cols.join(', ')} FROM ${q.table(t.events, 'e')} WHERE ${w.join(' AND ')}`;
  if (req.byDay) sql += ' GROUP BY o_day';
  const sums = ['o_meaningful_sessions', 'o_meaningful_occurrences', 'o_error_sessions', 'o_instrumentation_sessions'];
  const keys = req.byDay ? ['o_day'] : [];
  return { ...q.done(sql), columns: [...keys, ...sums], text: [], keys, merge: Object.fromEntries(sums.map((c) => [c, 'sum'])) };
}

export function decodeActionTotals(req: ActionTotalsRequest, rows: readonly Record<string, unknown>[]): ActionTotals[] {
  const out = rows.map((r) => ({
    ...(req.byDay ? { day: toInt(r.o_day) } : {}),
    meaningfulSessions: toInt(r.o_meaningful_sessions),
    meaningfulOccurrences: toInt(r.o_meaningful_occurrences),
    errorSessions: toInt(r.o_error_sessions),
    instrumentationSessions: toInt(r.o_instrumentation_sessions),
  }));
  // an aggregate over no rows is one row of zeros without GROUP BY: keep "one row" whatever the engine
  if (!req.byDay && out.length === 0)
    return [{ meaningfulSessions: 0, meaningfulOccurrences: 0, errorSessions: 0, instrumentationSessions: 0 }];
  return out;
}
