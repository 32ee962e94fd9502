// AnalyticsEngine over ClickHouse: the shared compilers' SQL (clickhouseDialect: literals, exact
// uniqExact), restricted to the committed generation of each day (commit-log.ts).
// One server runs each statement. On a cluster every shard runs it on its own tables and the engine
// combines the partial results: a visitor's events and sessions all live on one shard, so every
// count (visitors and sessions included) is a plain sum over shards (read-rows.ts mergePartials).
// (18.16 loses table aliases when it rewrites joins over Distributed tables, which rules out pushing
// the joins through them.)
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
import { compilePageTitles, decodePageTitles } from '../sql/compile-page-titles.js';
import { compileQuery, BUCKET_COL, KEY_COL } from '../sql/compile-query.js';
import { clickhouseDialect } from '../sql/dialect.js';
import { mergePartials, toInt, type CompiledRead } from '../sql/read-rows.js';
import { siteCoverage, siteGens, siteVersion, visibleRows } from './commit-log.js';
import { engineError, type ClickHouseNode } from './node.js';
import { DAY_MS } from './sessionize.js';
import type { TableLayout } from './schema.js';

export interface ClickHouseEngineParts {
  coordinator: ClickHouseNode;
  shards: ClickHouseNode[];
  layout: TableLayout;
}

type Row = Record<string, unknown>;
type Settings = Record<string, number>;

export class ClickHouseAnalyticsEngine implements AnalyticsEngine {
  constructor(private readonly p: ClickHouseEngineParts) {}

  /** SELECT statements sent to the servers so far, by every user of these connections (benches) */
  get statements(): number {
    return this.p.shards.reduce((n, s) => n + s.queries, this.p.shards.includes(this.p.coordinator) ? 0 : this.p.coordinator.queries);
  }

  private get nodes(): ClickHouseNode[] {
    return this.p.layout.cluster !== null ? this.p.shards : [this.p.coordinator];
  }

  async run(spec: QuerySpec, options: RunOptions): Promise<MetricRow[]> {
    const normalized = normalizeSpec(spec);
    const sharded = this.p.layout.cluster !== null;
    const results = await this.guard(options.timeoutMs, async (settings, signal) => {
      const read = await this.readOptions(normalized.siteId, normalized, settings, signal);
      const compiled = compileQuery(normalized, clickhouseDialect, read.tables!, { rowFilter: read.rowFilter, partial: sharded });
      const partials = await Promise.all(this.nodes.map((n) => n.query<Row>(compiled.sql, { settings, signal })));
      return { compiled, partials };
    });
    const { compiled, partials } = results;
    const byGroup = new Map<string, AtomRow>();
    const atomRows: AtomRow[] = [];
    for (const rows of partials) {
      for (const r of rows) {
        const bucketMs = compiled.hasBucket ? toInt(r[BUCKET_COL]) : null;
        const key = compiled.hasKey ? ((r[KEY_COL] as string | null) ?? null) : null;
        const id = JSON.stringify([bucketMs, key]);
        let row = byGroup.get(id);
        if (!row) {
          row = { bucketMs, key, atoms: zeroAtoms() };
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

  async pageTitles(request: PageTitlesRequest, options: RunOptions): Promise<Map<string, string>> {
    if (request.paths.length === 0) return new Map();
    return decodePageTitles(await this.read(request.scope.siteId, request.window, options, (o) => compilePageTitles(clickhouseDialect, request, o)));
  }

  /** Read from the commit log, so every process sharing the store sees the same versions. */
  dataVersion(siteId: string): Promise<string> {
    return this.guard(30_000, (settings, signal) => siteVersion(this.p.coordinator, this.p.layout.days, siteId, { settings, signal }));
  }

  async newestEventAt(siteId: string): Promise<Date | null> {
    const c = await this.guard(30_000, (settings, signal) => siteCoverage(this.p.coordinator, this.p.layout.days, siteId, { settings, signal }));
    return c.lastMs === null ? null : new Date(c.lastMs);
  }

  async firstEventAt(siteId: string): Promise<Date | null> {
    const c = await this.guard(30_000, (settings, signal) => siteCoverage(this.p.coordinator, this.p.layout.days, siteId, { settings, signal }));
    return c.firstMs === null ? null : new Date(c.firstMs);
  }

  /**
   * The tables each server reads and which of their rows are visible: the committed generation of
   * each day of the window (and the day after it: sessions by page read its pageviews).
   */
  private async readOptions(siteId: string, window: { startMs: number; endMs: number }, settings: Settings, signal: AbortSignal): Promise<ReadOptions> {
    const L = this.p.layout;
    const gens = await siteGens(this.p.coordinator, L.days, siteId, window.startMs, window.endMs + DAY_MS, { settings, signal });
    return { tables: { events: L.eventsLocal, sessions: L.sessionsLocal }, rowFilter: visibleRows(gens) };
  }

  /** A compiled read on every server, partial results combined. */
  private read(siteId: string, window: { startMs: number; endMs: number }, options: RunOptions, compile: (o: ReadOptions) => CompiledRead): Promise<Row[]> {
    return this.guard(options.timeoutMs, async (settings, signal) => {
      const q = compile(await this.readOptions(siteId, window, settings, signal));
      const partials = await Promise.all(this.nodes.map((n) => n.query<Row>(q.sql, { settings, signal })));
      return mergePartials(q, partials);
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
