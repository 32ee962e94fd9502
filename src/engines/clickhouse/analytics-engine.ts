// AnalyticsEngine over ClickHouse: the shared compilers' SQL (clickhouseDialect: literals, exact
// uniqExact), the daily rollups wherever the planner finds an exact plan (as on DuckDB), restricted
// to the committed generation of each day (commit-log.ts visibleRows: a subquery of the server's
// commit log, pinned to the request's data version).
// Every server runs each statement on its own tables and the engine combines the partial results:
// a visitor's events, sessions and rollup rows all live on one server, so every count (visitors and
// sessions included) is a plain sum over servers (read-rows.ts mergePartials).
import { assembleRows, zeroAtoms, type AtomRow, type MetricRow } from '../../domain/query/assemble.js';
import { normalizeSpec, type QuerySpec } from '../../domain/query/query-spec.js';
import type {
  ActionRow,
  ActionRowsRequest,
  ActionTotals,
  ActionTotalsRequest,
  AnalyticsEngine,
  GoalMatch,
  GoalMatchRequest,
  PageTitlesRequest,
  RunOptions,
} from '../../ports/analytics-engine.js';
import { compileActionRows, compileActionTotals, decodeActionRows, decodeActionTotals, type ReadOptions } from '../sql/compile-actions.js';
import { compileGoalMatches, decodeGoalMatches } from '../sql/compile-goals.js';
import { compilePageTitles, compilePageTitlesFromRollup, decodePageTitles } from '../sql/compile-page-titles.js';
import { BUCKET_COL, KEY_COL, SPLIT_COL } from '../sql/compile-query.js';
import { compileSpec } from '../sql/compile-rollup.js';
import { clickhouseDialect } from '../sql/dialect.js';
import { mergePartials, toInt, type CompiledRead } from '../sql/read-rows.js';
import { DAY_MS, genOfVersion, siteCoverage, syncedVersion, visibleRows, type Shard } from './commit-log.js';
import { engineError } from './node.js';
import type { TableLayout } from './schema.js';

export interface ClickHouseEngineParts {
  /** the first server: the commit log's authority */
  coordinator: Shard;
  /** every server holding rows, the coordinator among them */
  shards: Shard[];
  layout: TableLayout;
}

type Row = Record<string, unknown>;
type Settings = Record<string, number>;

export class ClickHouseAnalyticsEngine implements AnalyticsEngine {
  constructor(private readonly p: ClickHouseEngineParts) {}

  /** SELECT statements sent to the servers so far, by every user of these connections (benches) */
  get statements(): number {
    return this.p.shards.reduce((n, s) => n + s.node.queries, 0);
  }

  private get sharded(): boolean {
    return this.p.shards.length > 1;
  }

  async run(spec: QuerySpec, options: RunOptions): Promise<MetricRow[]> {
    const normalized = normalizeSpec(spec);
    const L = this.p.layout;
    const { compiled, partials } = await this.guard(options.timeoutMs, async (settings, signal) => {
      const gen = await this.pinned(normalized.siteId, options.asOf, settings, signal);
      const runs = this.p.shards.map(async (s) => {
        const rowFilter = this.visibility(s, normalized.siteId, normalized, gen);
        const q = compileSpec(normalized, clickhouseDialect, { events: L.events, sessions: L.sessions }, { rollups: true, rollupTable: L.rollups, rowFilter, partial: this.sharded });
        return { q, rows: await s.node.query<Row>(q.sql, { settings, signal }) };
      });
      const done = await Promise.all(runs);
      return { compiled: done[0].q, partials: done.map((d) => d.rows) };
    });
    const byGroup = new Map<string, AtomRow>();
    const atomRows: AtomRow[] = [];
    for (const rows of partials) {
      for (const r of rows) {
        const bucketMs = compiled.hasBucket ? toInt(r[BUCKET_COL]) : null;
        const key = compiled.hasKey ? ((r[KEY_COL] as string | null) ?? null) : null;
        const split = compiled.hasSplit ? ((r[SPLIT_COL] as string | null) ?? null) : undefined;
        const id = JSON.stringify([bucketMs, key, split]);
        let row = byGroup.get(id);
        if (!row) {
          row = { bucketMs, key, ...(split !== undefined ? { split } : {}), atoms: zeroAtoms() };
          byGroup.set(id, row);
          atomRows.push(row);
        }
        for (const a of compiled.atoms) row.atoms[a] += toInt(r[a]);
      }
    }
    return assembleRows(normalized, atomRows);
  }

  async actionRows(request: ActionRowsRequest, options: RunOptions): Promise<ActionRow[]> {
    const { window, scope } = request.selection;
    return decodeActionRows(request, await this.read(scope.siteId, window, options, (o) => compileActionRows(clickhouseDialect, request, o)));
  }

  async actionTotals(request: ActionTotalsRequest, options: RunOptions): Promise<ActionTotals[]> {
    const { window, scope } = request.selection;
    return decodeActionTotals(request, await this.read(scope.siteId, window, options, (o) => compileActionTotals(clickhouseDialect, request, o)));
  }

  async goalMatches(request: GoalMatchRequest, options: RunOptions): Promise<GoalMatch[]> {
    if (request.goals.length === 0) return [];
    return decodeGoalMatches(request, await this.read(request.scope.siteId, request.window, options, (o) => compileGoalMatches(clickhouseDialect, request, o)!));
  }

  /** From the page-title rollup for whole UTC days, else from the events. */
  async pageTitles(request: PageTitlesRequest, options: RunOptions): Promise<Map<string, string>> {
    if (request.paths.length === 0) return new Map();
    const L = this.p.layout;
    return decodePageTitles(
      await this.read(request.scope.siteId, request.window, options, (o) =>
        compilePageTitlesFromRollup(clickhouseDialect, request, { table: L.titles, rowFilter: o.rowFilter }) ?? compilePageTitles(clickhouseDialect, request, o),
      ),
    );
  }

  /** From the commit log, so every process sharing the store sees the same versions. */
  dataVersion(siteId: string): Promise<string> {
    return this.guard(30_000, (settings, signal) => this.version(siteId, settings, signal));
  }

  async newestEventAt(siteId: string): Promise<Date | null> {
    const c = await this.guard(30_000, (settings, signal) => siteCoverage(this.p.coordinator.node, this.p.layout.days, siteId, { settings, signal }));
    return c.lastMs === null ? null : new Date(c.lastMs);
  }

  async firstEventAt(siteId: string): Promise<Date | null> {
    const c = await this.guard(30_000, (settings, signal) => siteCoverage(this.p.coordinator.node, this.p.layout.days, siteId, { settings, signal }));
    return c.firstMs === null ? null : new Date(c.firstMs);
  }

  private version(siteId: string, settings: Settings, signal: AbortSignal): Promise<string> {
    const others = this.p.shards.filter((s) => s !== this.p.coordinator);
    return syncedVersion(this.p.coordinator, others, this.p.layout.days, siteId, { settings, signal });
  }

  /** The newest generation a read may see: the request's pinned version, or the current one. */
  private async pinned(siteId: string, asOf: string | undefined, settings: Settings, signal: AbortSignal): Promise<number> {
    return genOfVersion(asOf ?? (await this.version(siteId, settings, signal)));
  }

  /**
   * Which rows of a server a read may see: the generation of each day its log shows as current at
   * `gen`, over the window's days and the day after them (sessions by page read its pageviews).
   */
  private visibility(s: Shard, siteId: string, window: { startMs: number; endMs: number }, gen: number) {
    return visibleRows(s.num, this.p.layout.days, siteId, window.startMs, window.endMs + DAY_MS, gen);
  }

  /** A compiled read on every server, partial results combined. */
  private read(siteId: string, window: { startMs: number; endMs: number }, options: RunOptions, compile: (o: ReadOptions) => CompiledRead): Promise<Row[]> {
    const L = this.p.layout;
    return this.guard(options.timeoutMs, async (settings, signal) => {
      const gen = await this.pinned(siteId, options.asOf, settings, signal);
      const partials = await Promise.all(
        this.p.shards.map((s) => {
          const q = compile({ tables: { events: L.events, sessions: L.sessions }, rowFilter: this.visibility(s, siteId, window, gen) });
          return s.node.query<Row>(q.sql, { settings, signal }).then((rows) => ({ q, rows }));
        }),
      );
      return mergePartials(partials[0].q, partials.map((p) => p.rows));
    });
  }

  /**
   * Runs reads under a deadline: the server stops them at max_execution_time (whole seconds on
   * 18.16) and the request is abandoned at the exact timeout; either way EngineError('timeout').
   */
  private async guard<T>(timeoutMs: number, fn: (settings: Settings, signal: AbortSignal) => Promise<T>): Promise<T> {
    const ac = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ac.abort();
    }, timeoutMs);
    try {
      return await fn({ max_execution_time: Math.max(1, Math.ceil(timeoutMs / 1000)) }, ac.signal);
    } catch (e) {
      throw engineError(e, timedOut);
    } finally {
      clearTimeout(timer);
    }
  }
}
