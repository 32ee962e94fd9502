// The query API's breakdown by one custom property (`event:props:<key>`) from the rollup rows of
// PROP_GROUPINGS (rollup-tables.ts), exactly what compile-query-api.ts counts from the events
// (docs/decisions/query-api.md "Custom properties from the rollups"): each value's visitors, events and
// pageviews as stored, and the events without the key ("(none)") as the day's total less the values'
// events, their visitors as the day's visitors less those whose every event has the key. Planned for a
// window of whole UTC days, no filter, one traffic filter, every tenant or one, and those three atoms; the
// rest reads the events.
import { trafficFilterOf, type TrafficFilter } from '../../../domain/events.js';
import type { QueryAtom } from '../../../domain/query-api/query-metrics.js';
import { DAY_MS } from '../../../domain/report-range.js';
import type { QueryRowsRequest } from '../../../ports/analytics-engine.js';
import type { Dialect } from '../dialect.js';
import { PROP_GROUPINGS, ROLLUP_TABLE } from '../rollup-tables.js';
import type { ReadOptions } from './compile-actions.js';
import type { CompiledRead } from './read-rows.js';
import { SqlWriter } from './sql-writer.js';

export interface PropPlan {
  traffic: TrafficFilter;
  /** null: the all-tenants rows; else one tenant's */
  tenant: string | null;
  key: string;
}

const STORED: readonly QueryAtom[] = ['visitors', 'events', 'pageviews'];

/** The plan of a read the property rows answer exactly, or null. */
export function planPropRead(req: QueryRowsRequest): PropPlan | null {
  const [group, ...more] = req.groups;
  if (!group || more.length > 0 || group.kind !== 'prop' || req.bucketing || req.filters.length > 0) return null;
  if (!req.atoms.every((a) => STORED.includes(a))) return null;
  const traffic = trafficFilterOf(req.scope.trafficClasses);
  if (traffic === null) return null;
  const tenants = req.scope.tenantIds;
  if (tenants !== null && tenants.length !== 1) return null;
  const { startMs, endMs } = req.window;
  if (startMs % DAY_MS !== 0 || endMs % DAY_MS !== 0 || endMs <= startMs) return null;
  return { traffic, tenant: tenants === null ? null : tenants[0], key: group.key };
}

/** The read of `plan`, with compileQueryRows' result columns, keys and merge (partial results add up). */
export function compilePropRead(
  d: Dialect,
  req: QueryRowsRequest,
  plan: PropPlan,
  options: Pick<ReadOptions, 'rowFilter'> & { table?: string } = {},
): CompiledRead {
  const w = new SqlWriter(d, options.rowFilter);
  const r = (c: string) => w.col('r', c);
  const from = w.table(options.table ?? ROLLUP_TABLE, 'r');
  const none = d.nullString();
  // built where used: a placeholder written is a parameter bound
  const rows = (dim: string, key: string) =>
    [
      `${r('site_id')} = ${w.v(req.scope.siteId)}`,
      `${r('traffic')} = ${w.v(plan.traffic)}`,
      plan.tenant === null ? d.isTrue(r('all_tenants')) : `NOT ${d.isTrue(r('all_tenants'))}`,
      ...(plan.tenant === null ? [] : [`${r('tenant_id')} = ${w.v(plan.tenant)}`]),
      `${r('dim')} = ${w.v(dim)}`,
      `${r('filter_dim')} = ${w.v(PROP_GROUPINGS.filter)}`,
      `${r('filter_key')} = ${w.v(key)}`,
      `${r('day_ms')} >= ${w.v(req.window.startMs)}`,
      `${r('day_ms')} < ${w.v(req.window.endMs)}`,
      ...w.visible(['rollups', 'r']),
    ].join(' AND ');
  const n = (expr: string) => d.toInt64(expr);
  // each part: the key (NULL: none), visitors, events, pageviews
  const parts = [
    `SELECT ${d.nullable(r('dim_key'))} AS u_key, ${n(r('visitors'))} AS u_v, ${n(r('events'))} AS u_e, ${n(r('pageviews'))} AS u_p FROM ${from} WHERE ${rows(PROP_GROUPINGS.value, plan.key)}`,
    `SELECT ${none} AS u_key, ${n('0')} AS u_v, ${n(`0 - ${r('events')}`)} AS u_e, ${n(`0 - ${r('pageviews')}`)} AS u_p FROM ${from} WHERE ${rows(PROP_GROUPINGS.value, plan.key)}`,
    `SELECT ${none} AS u_key, ${n(`0 - ${r('visitors')}`)} AS u_v, ${n('0')} AS u_e, ${n('0')} AS u_p FROM ${from} WHERE ${rows(PROP_GROUPINGS.every, plan.key)}`,
    `SELECT ${none} AS u_key, ${n(r('visitors'))} AS u_v, ${n(r('events'))} AS u_e, ${n(r('pageviews'))} AS u_p FROM ${from} WHERE ${rows(PROP_GROUPINGS.total, '')}`,
  ];
  const column = { visitors: 'u_v', events: 'u_e', pageviews: 'u_p' } as Record<QueryAtom, string>;
  const atoms = req.atoms.map((a) => `${n(`sum(u.${column[a]})`)} AS q_${a}`);
  // a group the events' read has holds an event: the none group of a key every event carries has none
  const sql = `SELECT u.u_key AS q_k0, ${atoms.join(', ')} FROM (${parts.join(' UNION ALL ')}) AS u GROUP BY u.u_key HAVING sum(u.u_e) > 0`;
  return {
    sql,
    params: w.params,
    columns: ['q_k0', ...req.atoms.map((a) => `q_${a}`)],
    text: ['q_k0'],
    keys: ['q_k0'],
    merge: Object.fromEntries(req.atoms.map((a) => [`q_${a}`, 'sum'])),
  };
}
