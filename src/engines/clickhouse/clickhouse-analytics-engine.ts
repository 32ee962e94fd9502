// AnalyticsEngine over ClickHouse: the shared compilers' SQL (clickhouseDialect: literals, exact
// uniqExact), the daily rollups wherever the planner finds an exact plan (as on DuckDB), restricted
// to the committed generation of each day (commit-log.ts visibleRows: the generations the request's
// data version pins, as literals when its version read listed them, else a subquery of the log).
// Every server runs each statement on its own tables and the engine combines the partial results:
// a visitor's events, sessions and rollup rows all live on one server, so every count (visitors and
// sessions included) is a plain sum over servers (read-rows.ts sumAtomRows, mergePartials). Reads
// started together go out together, side by side (read-batch.ts).
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
import {
  compileActionRows,
  compileActionTotals,
  decodeActionRows,
  decodeActionTotals,
  type ReadOptions,
} from '../sql/read/compile-actions.js';
import { compileActionRowsFromRollup, compileActionTotalsFromRollup } from '../sql/read/compile-actions-rollup.js';
import { planActions, type ActionsPlan } from '../sql/read/actions-plan.js';
import { compileGoalMatches, decodeGoalMatches } from '../sql/read/compile-goals.js';
import {
  compilePageTitles,
  compilePageTitlesFromRollup,
  compilePageTitlesSlice,
  decodePageTitles,
  wholeDays,
} from '../sql/read/compile-page-titles.js';
import { BUCKET_COL, KEY_COL, SPLIT_COL, type CompiledQuery } from '../sql/read/compile-query.js';
import { atomsFor } from '../../domain/query/metrics.js';
import { compileSpec } from '../sql/read/compile-rollup.js';
import { compileRollupSlice, groupSlice, sliceKey, type SliceMember } from '../sql/read/compile-rollup-slice.js';
import { actionsSliceKey, compileActionsSlice, type ActionsSliceMember } from '../sql/read/compile-actions-slice.js';
import { planRollup } from '../sql/read/rollup-plan.js';
import { clickhouseDialect } from '../sql/dialect.js';
import { mergePartials, sumAtomRows, type CompiledRead } from '../sql/read/read-rows.js';
import {
  DAY_MS,
  genOfVersion,
  syncedState,
  visibleRows,
  type CopiesSeen,
  type Coverage,
  type DayGens,
  type Shard,
  type SyncedState,
} from './commit-log.js';
import { engineError } from './node.js';
import { ReadBatcher, type ServerStatement } from './read-batch.js';
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
type Window = { startMs: number; endMs: number };

/**
 * A read offered for a shared statement: a QuerySpec or action rows from a rollup, with the window
 * and the version it is pinned to (they pick the rows each server shows it).
 */
type SharedRead =
  | ({ kind: 'spec' } & SliceMember)
  | ({ kind: 'actions' } & ActionsSliceMember)
  | { kind: 'titles'; req: PageTitlesRequest };
type Shared = SharedRead & { window: Window; asOf: string | undefined };

/** Sites whose newest version's generations the engine keeps (each: its days on each server). */
const MAX_PINNED = 256;

/** A QuerySpec statement's result columns (compile-query.ts CompiledQuery). */
function specStatement(q: CompiledQuery): ServerStatement {
  const columns = [...(q.hasBucket ? [BUCKET_COL] : []), ...(q.hasKey ? [KEY_COL] : []), ...(q.hasSplit ? [SPLIT_COL] : []), ...q.atoms];
  return { sql: q.sql, columns, text: [KEY_COL, SPLIT_COL] };
}

export class ClickHouseAnalyticsEngine implements AnalyticsEngine {
  private readonly batcher: ReadBatcher;
  /**
   * Reads of a site's state in flight (its data version, pinned generations and coverage: one
   * statement, syncedState), by site: a request's data version, first and newest event share one.
   */
  private readonly stateReads = new Map<string, Promise<SyncedState>>();
  /** by site, the newest version read and its servers' current generations: reads pinned to it filter by them */
  private readonly pinned = new Map<string, { version: string; gens: DayGens }>();
  /** the other servers' copies of the log last found whole (commit-log.ts CopiesSeen) */
  private readonly copiesSeen: CopiesSeen = new Map();

  constructor(
    private readonly p: ClickHouseEngineParts,
    /**
     * actionsRollup false: action reads always scan the events; shareRollupReads false: every rollup
     * read (QuerySpecs, action rows) has a statement of its own (comparisons, benches); queryRollups
     * false: query API reads always count the events (comparisons)
     */
    private readonly opts: { actionsRollup?: boolean; shareRollupReads?: boolean; queryRollups?: boolean } = {},
  ) {
    this.batcher = new ReadBatcher({
      servers: p.shards,
      currentGen: async (siteId, settings, signal) => genOfVersion((await this.readState(siteId, settings, signal)).version),
      genOf: genOfVersion,
      // members of one key are of one kind, and share site, window and (one batch) pinned version
      share: {
        group: (members) => {
          const m = members as Shared[];
          return m[0].kind === 'spec' ? groupSlice(m as SliceMember[]) : [m.map((_, i) => i)];
        },
        statement: (members, s, gen) => {
          const m = members as Shared[];
          // title reads of one scope may differ in window: their statement shows the rows of every one
          const window = { startMs: Math.min(...m.map((x) => x.window.startMs)), endMs: Math.max(...m.map((x) => x.window.endMs)) };
          const options = { rowFilter: this.visibility(s, this.siteOf(m[0]), window, gen, m[0].asOf) };
          if (m[0].kind === 'titles')
            return compilePageTitlesSlice(
              clickhouseDialect,
              (m as { req: PageTitlesRequest }[]).map((x) => x.req),
              { table: this.p.layout.titles, ...options },
            );
          return m[0].kind === 'spec'
            ? compileRollupSlice(m as SliceMember[], clickhouseDialect, { table: this.p.layout.rollups, ...options })
            : compileActionsSlice(m as ActionsSliceMember[], clickhouseDialect, { table: this.p.layout.actions, ...options });
        },
      },
    });
  }

  /** SELECT statements sent to the servers so far, by every user of these connections (benches) */
  get statements(): number {
    return this.p.shards.reduce((n, s) => n + s.node.queries, 0);
  }

  async run(spec: QuerySpec, options: RunOptions): Promise<MetricRow[]> {
    const normalized = normalizeSpec(spec);
    const L = this.p.layout;
    const sharded = this.p.shards.length > 1;
    const decision = planRollup(normalized);
    const key = decision.use === 'rollup' ? sliceKey(decision.plan) : undefined;
    const share =
      key === undefined || decision.use !== 'rollup'
        ? undefined
        : this.share(`spec ${key}`, { kind: 'spec', spec: normalized, plan: decision.plan }, normalized, options);
    // the rows of its own statement or of a shared one (compile-rollup-slice.ts): the same columns either way
    const columns = {
      hasBucket: normalized.interval !== undefined,
      hasKey: normalized.dimension !== undefined,
      hasSplit: normalized.splitBy !== undefined,
      atoms: atomsFor(normalized.metrics),
    };
    const atomRows = await this.batcher.read({
      siteId: normalized.siteId,
      asOf: options.asOf,
      timeoutMs: options.timeoutMs,
      statement: (s, gen) => {
        const rowFilter = this.visibility(s, normalized.siteId, normalized, gen, options.asOf);
        return specStatement(
          compileSpec(
            normalized,
            clickhouseDialect,
            { events: L.events, sessions: L.sessions },
            { rollups: true, rollupTable: L.rollups, rowFilter, partial: sharded },
          ),
        );
      },
      share,
      // rows of one (bucket, key, split) come from several servers, or from a shared statement's finer groups: summed
      finish: (partials) => sumAtomRows(columns, partials),
    });
    return assembleRows(normalized, atomRows);
  }

  /** From the actions rollup where it answers exactly (actions-plan.ts), else from the events. */
  actionRows(request: ActionRowsRequest, options: RunOptions): Promise<ActionRow[]> {
    const { window, scope } = request.selection;
    const plan = this.actionsPlan(request.selection, request.groupBy);
    const compile = (o: ReadOptions) =>
      plan
        ? compileActionRowsFromRollup(clickhouseDialect, request, plan, { table: this.p.layout.actions, rowFilter: o.rowFilter })
        : compileActionRows(clickhouseDialect, request, o);
    const member = plan ? { req: request, plan } : undefined;
    const share = member ? this.share(`actions ${actionsSliceKey(member)}`, { kind: 'actions', ...member }, window, options) : undefined;
    return this.read(scope.siteId, window, options, compile, (rows) => decodeActionRows(request, rows), share);
  }

  actionTotals(request: ActionTotalsRequest, options: RunOptions): Promise<ActionTotals[]> {
    const { window, scope } = request.selection;
    const plan = this.actionsPlan(request.selection, 'totals');
    const compile = (o: ReadOptions) =>
      plan
        ? compileActionTotalsFromRollup(clickhouseDialect, request, plan, { table: this.p.layout.actions, rowFilter: o.rowFilter })
        : compileActionTotals(clickhouseDialect, request, o);
    const member = plan ? { totals: request, plan } : undefined;
    const share = member ? this.share(`actions ${actionsSliceKey(member)}`, { kind: 'actions', ...member }, window, options) : undefined;
    return this.read(scope.siteId, window, options, compile, (rows) => decodeActionTotals(request, rows), share);
  }

  private actionsPlan(selection: ActionSelection, groupBy: Parameters<typeof planActions>[1]): ActionsPlan | null {
    if (this.opts.actionsRollup === false) return null;
    const d = planActions(selection, groupBy);
    return d.use === 'rollup' ? d.plan : null;
  }

  async goalMatches(request: GoalMatchRequest, options: RunOptions): Promise<GoalMatch[]> {
    if (request.goals.length === 0) return [];
    return this.read(
      request.scope.siteId,
      request.window,
      options,
      (o) => compileGoalMatches(clickhouseDialect, request, o)!,
      (rows) => decodeGoalMatches(request, rows),
    );
  }

  /** From the page-title rollup for whole UTC days (title reads of one scope started together: one statement), else from the events. */
  async pageTitles(request: PageTitlesRequest, options: RunOptions): Promise<Map<string, string>> {
    if (request.paths.length === 0) return new Map();
    const L = this.p.layout;
    const compile = (o: ReadOptions) =>
      compilePageTitlesFromRollup(clickhouseDialect, request, { table: L.titles, rowFilter: o.rowFilter }) ??
      compilePageTitles(clickhouseDialect, request, o);
    const { scope } = request;
    const share = wholeDays(request.window)
      ? this.share(
          `titles ${JSON.stringify([scope.siteId, scope.tenantIds, scope.trafficClasses])}`,
          { kind: 'titles', req: request },
          request.window,
          options,
        )
      : undefined;
    return this.read(scope.siteId, request.window, options, compile, decodePageTitles, share);
  }

  /**
   * The query API's read, on every server (each holds whole visitors and sessions), partial sums added:
   * from the quarter-hour or custom-property rollup rows where they answer exactly (planQuarterRead,
   * planPropRead), else the events.
   */
  queryRows(request: QueryRowsRequest, options: RunOptions): Promise<QueryRow[]> {
    const rollups = this.opts.queryRollups !== false;
    const quarters = rollups ? planQuarterRead(request) : null;
    // a window with parts of days at its edges (a site off UTC) is counted from the events here: the split
    // DuckDB makes would be three reads on every server, not done yet
    const planned = rollups && !quarters ? planPropRead(request) : null;
    const props = planned && planned.edges.length === 0 ? planned : null;
    const table = this.p.layout.rollups;
    return this.read(
      request.scope.siteId,
      request.window,
      options,
      (o) =>
        quarters
          ? compileQuarterRead(clickhouseDialect, request, quarters, { rowFilter: o.rowFilter, table })
          : props
            ? compilePropRead(clickhouseDialect, request, props, { rowFilter: o.rowFilter, table })
            : compileQueryRows(clickhouseDialect, request, o),
      (rows) => decodeQueryRows(request, quarters ? foldQuarterRows(request, quarters, rows) : props ? foldPropRows(request, rows) : rows),
    );
  }

  /** A funnel's visitors per step, on every server (each holds whole sessions and visitors), partial sums added. */
  funnelSteps(request: FunnelStepsRequest, options: RunOptions): Promise<number[]> {
    return this.read(
      request.scope.siteId,
      request.window,
      options,
      (o) => compileFunnelSteps(clickhouseDialect, request, o),
      (rows) => decodeFunnelSteps(request, rows),
    );
  }

  /** From the commit log, so every process sharing the store sees the same versions. */
  async dataVersion(siteId: string): Promise<string> {
    return (await this.state(siteId)).version;
  }

  async newestEventAt(siteId: string): Promise<Date | null> {
    const c = await this.coverage(siteId);
    return c.lastMs === null ? null : new Date(c.lastMs);
  }

  async firstEventAt(siteId: string): Promise<Date | null> {
    const c = await this.coverage(siteId);
    return c.firstMs === null ? null : new Date(c.firstMs);
  }

  /** The site's coverage from the commit log. */
  private async coverage(siteId: string): Promise<Coverage> {
    return (await this.state(siteId)).coverage;
  }

  /**
   * The site's state from the commit log; callers while a read is in flight share it (it may then
   * not show a commit that ended after it started: concurrent with that commit, either order holds).
   */
  private state(siteId: string): Promise<SyncedState> {
    let read = this.stateReads.get(siteId);
    if (!read) {
      read = this.guard(30_000, (settings, signal) => this.readState(siteId, settings, signal)).finally(() =>
        this.stateReads.delete(siteId),
      );
      this.stateReads.set(siteId, read);
    }
    return read;
  }

  private async readState(siteId: string, settings: Settings, signal: AbortSignal): Promise<SyncedState> {
    const others = this.p.shards.filter((s) => s !== this.p.coordinator);
    const state = await syncedState(this.p.coordinator, others, this.p.layout.days, siteId, { settings, signal }, this.copiesSeen);
    // the newest read last; the sites read longest ago go past MAX_PINNED (their reads fall back to the subquery)
    this.pinned.delete(siteId);
    this.pinned.set(siteId, { version: state.version, gens: state.gens });
    if (this.pinned.size > MAX_PINNED) this.pinned.delete(this.pinned.keys().next().value!);
    return state;
  }

  /**
   * Which rows of a server a read may see: the generation of each day its log shows as current at
   * `gen`, over the window's days and the day after them (sessions by page read its pageviews); as
   * literals when the version `asOf` is the one last read (its generations are known), else a subquery.
   */
  private visibility(s: Shard, siteId: string, window: Window, gen: number, asOf: string | undefined) {
    const pinned = this.pinned.get(siteId);
    const known = asOf !== undefined && pinned?.version === asOf ? (pinned.gens.get(s.num) ?? new Map<number, number>()) : undefined;
    return visibleRows(s.num, this.p.layout.days, siteId, window.startMs, window.endMs + DAY_MS, gen, known);
  }

  /** A compiled read on every server (batched with reads started together), partial results combined. */
  private read<T>(
    siteId: string,
    window: Window,
    options: RunOptions,
    compile: (o: ReadOptions) => CompiledRead,
    decode: (rows: Row[]) => T,
    share?: { key: string; member: Shared },
  ): Promise<T> {
    const tables = { events: this.p.layout.events, sessions: this.p.layout.sessions };
    let q: CompiledRead | undefined;
    return this.batcher.read({
      siteId,
      asOf: options.asOf,
      timeoutMs: options.timeoutMs,
      statement: (s, gen) => (q = compile({ tables, rowFilter: this.visibility(s, siteId, window, gen, options.asOf) })),
      share,
      // a read answered by a shared statement compiled none of its own: its columns and merge from the compiler
      finish: (partials) => decode(mergePartials(q ?? compile({ tables }), partials)),
    });
  }

  /** A read's offer to share statements (none when shareRollupReads is off). */
  private share(key: string, read: SharedRead, window: Window, options: RunOptions): { key: string; member: Shared } | undefined {
    if (this.opts.shareRollupReads === false) return undefined;
    return { key, member: { ...read, window: { startMs: window.startMs, endMs: window.endMs }, asOf: options.asOf } };
  }

  private siteOf(m: Shared): string {
    return m.kind === 'spec' ? m.spec.siteId : m.kind === 'titles' ? m.req.scope.siteId : m.plan.siteId;
  }

  /**
   * Runs reads of the commit log under a deadline: the server stops them at max_execution_time
   * (whole seconds on 18.16) and the request is abandoned at the exact timeout; either way
   * EngineError('timeout').
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
