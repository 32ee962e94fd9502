// The custom-property rows of the rollup table (PROP_GROUPINGS in rollup-tables.ts says what each counts),
// through the shared Dialect hooks, in ROLLUP_COLUMNS order: one statement for DuckDB and each ClickHouse
// server, over the same events as the quarter-hour rows (quarter-rollup-build.ts), so every writer that
// keeps those keeps these.
//
// Every atom is a sum over visitor-days (whether a visitor-day has an event of a value, or carries a key
// on every event, depends on its own events only), so an import's delta moves them exactly. Per traffic
// filter and tenant scope a visitor-day is one key: its classes' (and tenants') counts are added first.
import { DAY_MS } from '../../../domain/report-range.js';
import { ATOMS, type Atom } from '../../../domain/query/metrics.js';
import type { Dialect, SqlParam } from '../dialect.js';
import { PROP_GROUPINGS, ROLLUP_COLUMNS } from '../rollup-tables.js';
import type { CompiledBuild } from './rollup-build.js';

/** The custom-property rollup rows of exactly the events of `events`; `trafficMap` as every build's. */
export function compilePropRollupBuild(d: Dialect, events: string, trafficMap: string): CompiledBuild {
  const params: SqlParam[] = [];
  const id = (c: string) => d.quoteIdent(c);
  const v = (x: string | boolean) => d.value(x, params);
  const day = (ts: string) => `${d.intDiv(ts, String(DAY_MS))} * ${DAY_MS}`;
  const e = (c: string) => `e.${id(c)}`;
  const pageview = `sum(CASE WHEN ${e('type')} = ${v('pageview')} THEN 1 ELSE 0 END)`;
  // a tenant as a join key ('' for none: NULL keys do not join), and back
  const tenantKey = (col: string) => `coalesce(${col}, ${v('')})`;
  const tenantOf = (col: string) => d.nullable(`(CASE WHEN ${col} = ${v('')} THEN ${d.nullString()} ELSE ${col} END)`);

  /** per (visitor-day, traffic filter) sums of per-class rows `inner`, keyed by `keys` besides the visitor-day */
  const perFilter = (inner: string, keys: readonly string[], sums: readonly string[]) =>
    `SELECT w.w_site AS f_site, w.w_day AS f_day, w.w_tenant AS f_tenant, m.traffic AS f_traffic, w.w_vk AS f_vk, ` +
    `${[...keys.map((k) => `w.w_${k} AS f_${k}`), ...sums.map((s) => `sum(w.w_${s}) AS f_${s}`)].join(', ')} ` +
    `FROM (${inner}) AS w INNER JOIN ${d.quoteIdent(trafficMap)} AS m ON m.class = w.w_class ` +
    `GROUP BY w.w_site, w.w_day, w.w_tenant, m.traffic, w.w_vk${keys.map((k) => `, w.w_${k}`).join('')}`;
  /** the same across tenants (the tenant '') */
  const acrossTenants = (rows: string, keys: readonly string[], sums: readonly string[]) =>
    `SELECT f.f_site AS f_site, f.f_day AS f_day, ${v('')} AS f_tenant, f.f_traffic AS f_traffic, f.f_vk AS f_vk, ` +
    `${[...keys.map((k) => `f.f_${k} AS f_${k}`), ...sums.map((s) => `sum(f.f_${s}) AS f_${s}`)].join(', ')} ` +
    `FROM (${rows}) AS f GROUP BY f.f_site, f.f_day, f.f_traffic, f.f_vk${keys.map((k) => `, f.f_${k}`).join('')}`;
  const scopes = (rows: string, keys: readonly string[], sums: readonly string[]) =>
    [
      [false, rows],
      [true, acrossTenants(rows, keys, sums)],
    ] as const;
  const visitorDay =
    `${e('site_id')} AS w_site, ${day(e('ts_ms'))} AS w_day, ${tenantKey(e('tenant_id'))} AS w_tenant, ` +
    `${e('traffic_class')} AS w_class, ${e('visitor_key')} AS w_vk`;
  const visitorDayKeys = 'w_site, w_day, w_tenant, w_class, w_vk';

  // Parts yield p_site, p_day, p_all, p_tenant, p_traffic, p_dim, p_key (dim_key), p_fkey (filter_key), atoms.
  const parts: string[] = [];
  const part = (
    all: boolean,
    dim: string,
    dimKey: string,
    filterKey: string,
    atoms: Partial<Record<Atom, string>>,
    from: string,
    group: string,
  ) =>
    parts.push(
      `SELECT r.f_site AS p_site, r.f_day AS p_day, ${v(all)} AS p_all, ${tenantOf('r.f_tenant')} AS p_tenant, r.f_traffic AS p_traffic, ` +
        `${v(dim)} AS p_dim, ${dimKey} AS p_key, ${filterKey} AS p_fkey, ` +
        `${ATOMS.map((a) => `${d.toInt64(atoms[a] ?? '0')} AS p_${a}`).join(', ')} FROM ${from} GROUP BY ${group}`,
    );
  const scopeGroup = 'r.f_site, r.f_day, r.f_tenant, r.f_traffic';

  // values: per visitor-day, key and value, its events of the value
  const values = perFilter(
    `SELECT ${visitorDay}, p_key AS w_key, p_value AS w_value, count(*) AS w_ev, ${pageview} AS w_pv ` +
      `FROM ${d.propPairs(id(events), 'e')} GROUP BY ${visitorDayKeys}, w_key, w_value`,
    ['key', 'value'],
    ['ev', 'pv'],
  );
  for (const [all, rows] of scopes(values, ['key', 'value'], ['ev', 'pv']))
    part(
      all,
      PROP_GROUPINGS.value,
      d.nullable('r.f_value'),
      'r.f_key',
      { visitors: 'count(*)', events: 'sum(r.f_ev)', pageviews: 'sum(r.f_pv)' },
      `(${rows}) AS r`,
      `${scopeGroup}, r.f_key, r.f_value`,
    );

  // every visitor-day's events, and its events per key: the key is on every event when the two agree
  const totals = perFilter(
    `SELECT ${visitorDay}, count(*) AS w_n, ${pageview} AS w_pv FROM ${id(events)} AS e GROUP BY ${visitorDayKeys}`,
    [],
    ['n', 'pv'],
  );
  const keyed = perFilter(
    `SELECT ${visitorDay}, p_key AS w_key, count(*) AS w_c FROM ${d.propPairs(id(events), 'e')} GROUP BY ${visitorDayKeys}, w_key`,
    ['key'],
    ['c'],
  );
  const totalScopes = scopes(totals, [], ['n', 'pv']);
  const keyedScopes = scopes(keyed, ['key'], ['c']);
  for (const [i, [all, rows]] of totalScopes.entries()) {
    part(
      all,
      PROP_GROUPINGS.total,
      d.nullString(),
      v(''),
      { visitors: 'count(*)', events: 'sum(r.f_n)', pageviews: 'sum(r.f_pv)' },
      `(${rows}) AS r`,
      scopeGroup,
    );
    const n = (c: string) => `n.f_${c}`;
    const k = (c: string) => `k.f_${c}`;
    const every =
      `SELECT ${k('site')} AS f_site, ${k('day')} AS f_day, ${k('tenant')} AS f_tenant, ${k('traffic')} AS f_traffic, ${k('key')} AS f_key, ` +
      `${d.toInt64(`CASE WHEN ${k('c')} = ${n('n')} THEN 1 ELSE 0 END`)} AS f_every FROM (${keyedScopes[i][1]}) AS k INNER JOIN (${rows}) AS n ` +
      `ON ${n('site')} = ${k('site')} AND ${n('day')} = ${k('day')} AND ${n('tenant')} = ${k('tenant')} AND ${n('traffic')} = ${k('traffic')} AND ${n('vk')} = ${k('vk')}`;
    part(all, PROP_GROUPINGS.every, d.nullString(), 'r.f_key', { visitors: 'sum(r.f_every)' }, `(${every}) AS r`, `${scopeGroup}, r.f_key`);
  }

  const heads = ['u.p_site', 'u.p_day', 'u.p_all', 'u.p_tenant', 'u.p_traffic', 'u.p_dim', 'u.p_key', v(PROP_GROUPINGS.filter), 'u.p_fkey'];
  const cols = [...heads, ...ATOMS.map((a) => d.toInt64(`sum(u.p_${a})`))];
  const names = ROLLUP_COLUMNS.map(id);
  if (names.length !== cols.length) throw new Error('prop rollup columns out of step with ROLLUP_COLUMNS');
  const grouped = heads.filter((h) => h.startsWith('u.'));
  return {
    sql: `SELECT ${cols.map((c, i) => `${c} AS ${names[i]}`).join(', ')} FROM (${parts.join(' UNION ALL ')}) AS u GROUP BY ${grouped.join(', ')}`,
    params,
  };
}
