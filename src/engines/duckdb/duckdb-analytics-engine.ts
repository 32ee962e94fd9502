// AnalyticsEngine over DuckDB: the shared compilers' SQL (engines/sql), run as prepared statements
// with bound parameters. The store (tables, imports) belongs to the rest of engines/duckdb/.
import { assembleRows, type MetricRow } from '../../domain/query/assemble.js';
import { normalizeSpec, type QuerySpec } from '../../domain/query/query-spec.js';
import type {
  ActionRow,
  ActionRowsRequest,
  ActionSelection,
  ActionTotals,
  ActionTotalsRequest,
  AnalyticsEngine,
  FunnelStepsRequest,
  GoalMatch,
  GoalMatchRequest,
  PageTitlesRequest,
  QueryRow,
  QueryRowsRequest,
  RunOptions,
} from '../../ports/analytics-engine.js';
import { compileQueryRows, decodeQueryRows } from '../sql/read/compile-query-api.js';
import { compilePropRead, foldPropRows, planPropRead } from '../sql/read/compile-query-props.js';
import { compileQuarterRead, foldQuarterRows, planQuarterRead } from '../sql/read/compile-query-quarters.js';
import { compileFunnelSteps, decodeFunnelSteps } from '../sql/read/compile-funnel.js';
import { compileActionRows, compileActionTotals, decodeActionRows, decodeActionTotals } from '../sql/read/compile-actions.js';
import { compileActionRowsFromRollup, compileActionTotalsFromRollup } from '../sql/read/compile-actions-rollup.js';
import { planActions, type ActionsPlan } from '../sql/read/actions-plan.js';
import { compileGoalMatches, decodeGoalMatches } from '../sql/read/compile-goals.js';
import { compilePageTitles, compilePageTitlesFromRollup, decodePageTitles } from '../sql/read/compile-page-titles.js';
import { DEFAULT_TABLES, type TableNames } from '../sql/read/compile-query.js';
import type { MsWindow } from '../../domain/availability.js';
import { duckdbDialect, type SqlParam } from '../sql/dialect.js';
import { compileSpec } from '../sql/read/compile-rollup.js';
import { atomRowOf, mergePartials, sumAtomRows, toInt, type CompiledRead } from '../sql/read/read-rows.js';
import type { CompiledSql } from '../sql/read/sql-writer.js';
import { runDuckQuery, type DuckConnection } from './duck-query.js';
import { rollupGate, type RollupGate } from './rollup-gate.js';
import type { Edges } from './site-edges.js';

export type { DuckConnection, DuckPrepared } from './duck-query.js';

export interface DuckDbAnalyticsEngineOptions<C extends DuckConnection = DuckConnection> {
  /**
   * A connection for one query. Queries run one at a time per connection (interrupt() stops
   * whatever runs on it), so a pool or a fresh connection per call is the caller's choice.
   */
  connect: () => Promise<C>;
  /** every connection from connect() comes back here after its query (e.g. closeSync, or a pool) */
  release?: (c: C) => void;
  tables?: TableNames;
  /** false: never read the daily rollups, the actions rollup included (comparisons, benches); default: read them where exact */
  rollups?: boolean;
  /** false: page titles from the events even where the page-title rollup answers (benches) */
  titleRollup?: boolean;
  /**
   * The store's data version of a site (EventStore.dataVersion). Absent: a new version on every
   * call, so nothing keyed by it is ever reused.
   */
  dataVersion?: (siteId: string) => Promise<string>;
  /**
   * The store's first live day for a site's reads (DuckDbEventStore.liveFromFor, live-days.ts): days
   * from it on are read from the events, as their rollup rows are not kept while they are live (null:
   * the site's rows are exact on every day). Absent: read from the store's footfall_meta at each read
   * that could use the rollups.
   */
  liveFrom?: (siteId: string) => number | null;
  /**
   * A site's first and newest event as the store keeps them (DuckDbEventStore.edges, site-edges.ts:
   * widened by each load instead of scanned again). Absent: each is read from the events.
   */
  edges?: (siteId: string) => Promise<Edges>;
}

export class DuckDbAnalyticsEngine<C extends DuckConnection = DuckConnection> implements AnalyticsEngine {
  private readonly tables: TableNames;
  private readonly rollups: RollupGate;
  private unversioned = 0;
  /** statements run so far (benches count the statements a request costs) */
  statements = 0;
  constructor(private readonly opts: DuckDbAnalyticsEngineOptions<C>) {
    this.tables = opts.tables ?? DEFAULT_TABLES;
    this.rollups = rollupGate(opts);
  }

  async run(spec: QuerySpec, options: RunOptions): Promise<MetricRow[]> {
    const normalized = normalizeSpec(spec);
    const rollups = await this.rollups.forSpec(normalized);
    const cut = rollups ? await this.cutAtLiveDays(normalized.siteId, normalized.startMs, normalized.endMs) : null;
    if (!cut) {
      const compiled = compileSpec(normalized, duckdbDialect, this.tables, { rollups });
      const rows = await this.query(compiled.sql, compiled.params, options.timeoutMs);
      return assembleRows(
        normalized,
        rows.map((r) => atomRowOf(compiled, r)),
      );
    }
    // The days before the live ones from the rollups, the live ones from the events: partial
    // results (grouped atom sums), added per group. Both have the same result columns (compile-rollup.ts).
    const parts = [
      ...(cut.closed ? [compileSpec({ ...normalized, ...cut.closed }, duckdbDialect, this.tables, { rollups: true, partial: true })] : []),
      compileSpec({ ...normalized, ...cut.live }, duckdbDialect, this.tables, { partial: true }),
    ];
    const results = await Promise.all(parts.map((c) => this.query(c.sql, c.params, options.timeoutMs)));
    return assembleRows(normalized, sumAtomRows(parts[0], results));
  }

  /**
   * A whole-day window that reaches the store's live days, cut at the first of them: the days
   * before (null: none) and the live ones. Null: the window holds no live day (or none is live).
   */
  private async cutAtLiveDays(siteId: string, startMs: number, endMs: number): Promise<{ closed: MsWindow | null; live: MsWindow } | null> {
    const liveFrom = this.opts.liveFrom ? this.opts.liveFrom(siteId) : await this.rollups.liveFrom();
    if (liveFrom === null || endMs < liveFrom) return null;
    return { closed: startMs < liveFrom ? { startMs, endMs: liveFrom - 1 } : null, live: { startMs: Math.max(startMs, liveFrom), endMs } };
  }

  /**
   * An action read: from the actions rollup where it answers exactly (`planOf`), else from the
   * events; a rollup read that reaches the live days takes those from the events, its partial
   * results merged (the scan's result columns and merge are the rollup read's: compile-actions-rollup.ts).
   */
  private async actionRead(
    selection: ActionSelection,
    planOf: (sel: ActionSelection) => Promise<ActionsPlan | null>,
    compile: (sel: ActionSelection, plan: ActionsPlan | null) => CompiledRead,
    options: RunOptions,
  ): Promise<Record<string, unknown>[]> {
    const plan = await planOf(selection);
    const cut = plan ? await this.cutAtLiveDays(selection.scope.siteId, selection.window.startMs, selection.window.endMs) : null;
    if (!cut) return this.read(compile(selection, plan), options);
    const parts: CompiledRead[] = [];
    if (cut.closed) parts.push(compile({ ...selection, window: cut.closed }, await planOf({ ...selection, window: cut.closed })));
    parts.push(compile({ ...selection, window: cut.live }, null));
    return mergePartials(parts[0], await Promise.all(parts.map((q) => this.read(q, options))));
  }

  /** From the actions rollup where it answers exactly (actions-plan.ts), else from the events. */
  async actionRows(request: ActionRowsRequest, options: RunOptions): Promise<ActionRow[]> {
    const compile = (selection: ActionSelection, plan: ActionsPlan | null) => {
      const r = { ...request, selection };
      return plan ? compileActionRowsFromRollup(duckdbDialect, r, plan) : compileActionRows(duckdbDialect, r, { tables: this.tables });
    };
    return decodeActionRows(
      request,
      await this.actionRead(request.selection, (sel) => this.actionsPlan(sel, request.groupBy), compile, options),
    );
  }

  async actionTotals(request: ActionTotalsRequest, options: RunOptions): Promise<ActionTotals[]> {
    const compile = (selection: ActionSelection, plan: ActionsPlan | null) => {
      const r = { ...request, selection };
      return plan ? compileActionTotalsFromRollup(duckdbDialect, r, plan) : compileActionTotals(duckdbDialect, r, { tables: this.tables });
    };
    return decodeActionTotals(
      request,
      await this.actionRead(request.selection, (sel) => this.actionsPlan(sel, 'totals'), compile, options),
    );
  }

  private async actionsPlan(selection: ActionSelection, groupBy: Parameters<typeof planActions>[1]): Promise<ActionsPlan | null> {
    const d = planActions(selection, groupBy);
    return d.use === 'rollup' && (await this.rollups.actions()) ? d.plan : null;
  }

  async goalMatches(request: GoalMatchRequest, options: RunOptions): Promise<GoalMatch[]> {
    const q = compileGoalMatches(duckdbDialect, request, { tables: this.tables });
    return decodeGoalMatches(request, q ? await this.read(q, options) : []);
  }

  /** From the page-title rollup for whole days when the store keeps one (it keeps both rollups or neither), else the events. */
  async pageTitles(request: PageTitlesRequest, options: RunOptions): Promise<Map<string, string>> {
    if (request.paths.length === 0) return new Map();
    const rollup =
      this.opts.titleRollup !== false && (await this.rollups.available()) ? compilePageTitlesFromRollup(duckdbDialect, request) : null;
    return decodePageTitles(await this.read(rollup ?? compilePageTitles(duckdbDialect, request, { tables: this.tables }), options));
  }

  /**
   * A query API read: from the quarter-hour rollup rows where they answer exactly (planQuarterRead),
   * the live days from the events (their partial results added per bucket: both are sums per UTC
   * visitor-day, and the split is at a UTC midnight); else from the events.
   */
  async queryRows(request: QueryRowsRequest, options: RunOptions): Promise<QueryRow[]> {
    const raw = (r: QueryRowsRequest) => compileQueryRows(duckdbDialect, r, { tables: this.tables });
    // the read of `r` from the quarter-hour or custom-property rollup rows, as the events' read's rows; null: not planned
    const fromRollups = (r: QueryRowsRequest): (() => Promise<Record<string, unknown>[]>) | null => {
      const quarters = planQuarterRead(r);
      if (quarters)
        return async () => foldQuarterRows(r, quarters, await this.read(compileQuarterRead(duckdbDialect, r, quarters), options));
      const props = planPropRead(r);
      if (!props) return null;
      // the whole UTC days from the rows, the parts of a day at the window's edges from the events
      return async () =>
        mergePartials(raw(r), [
          foldPropRows(r, await this.read(compilePropRead(duckdbDialect, r, props), options)),
          ...(await Promise.all(props.edges.map((window) => this.read(raw({ ...r, window }), options)))),
        ]);
    };
    const whole = fromRollups(request);
    if (!whole || !(await this.rollups.available())) return decodeQueryRows(request, await this.read(raw(request), options));
    // cutAtLiveDays' windows are inclusive: [startMs, endMs - 1] of integer ms is [startMs, endMs)
    const { startMs, endMs } = request.window;
    const cut = await this.cutAtLiveDays(request.scope.siteId, startMs, endMs - 1);
    if (!cut) return decodeQueryRows(request, await whole());
    // the closed days end at a UTC midnight, which cuts no day: they plan as the whole window did
    const closed = cut.closed ? fromRollups({ ...request, window: { startMs, endMs: cut.closed.endMs + 1 } }) : null;
    if (cut.closed && !closed) return decodeQueryRows(request, await this.read(raw(request), options));
    const live = raw({ ...request, window: { startMs: cut.live.startMs, endMs } });
    const [closedRows, liveRows] = await Promise.all([closed ? closed() : [], this.read(live, options)]);
    // the rollups' rows are the events' read's rows: merged by its keys
    return decodeQueryRows(request, mergePartials(live, closed ? [closedRows, liveRows] : [liveRows]));
  }

  /** A funnel's visitors per step: the events and sessions, like the query API's read. */
  async funnelSteps(request: FunnelStepsRequest, options: RunOptions): Promise<number[]> {
    return decodeFunnelSteps(request, await this.read(compileFunnelSteps(duckdbDialect, request, { tables: this.tables }), options));
  }

  dataVersion(siteId: string): Promise<string> {
    return this.opts.dataVersion ? this.opts.dataVersion(siteId) : Promise.resolve(`unversioned:${++this.unversioned}`);
  }

  async newestEventAt(siteId: string): Promise<Date | null> {
    if (!this.opts.edges) return this.edge('max', siteId);
    const { newestMs } = await this.opts.edges(siteId);
    return newestMs === null ? null : new Date(newestMs);
  }

  async firstEventAt(siteId: string): Promise<Date | null> {
    if (!this.opts.edges) return this.edge('min', siteId);
    const { firstMs } = await this.opts.edges(siteId);
    return firstMs === null ? null : new Date(firstMs);
  }

  private async edge(fn: 'min' | 'max', siteId: string): Promise<Date | null> {
    const params: SqlParam[] = [];
    const q = duckdbDialect.quoteIdent;
    const sql = `SELECT ${fn}(${q('ts_ms')}) AS edge FROM ${q(this.tables.events)} WHERE ${q('site_id')} = ${duckdbDialect.value(siteId, params)}`;
    const rows = await this.query(sql, params, 30_000);
    const v = rows[0]?.edge;
    return v === null || v === undefined ? null : new Date(toInt(v));
  }

  private query(sql: string, params: SqlParam[], timeoutMs: number): Promise<Record<string, unknown>[]> {
    this.statements++;
    return runDuckQuery(this.opts, sql, params, timeoutMs);
  }

  private read(q: CompiledSql, options: RunOptions): Promise<Record<string, unknown>[]> {
    return this.query(q.sql, q.params, options.timeoutMs);
  }
}
