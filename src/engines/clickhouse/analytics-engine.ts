// AnalyticsEngine over ClickHouse: the shared compiler's SQL (clickhouseDialect: literals, exact
// uniqExact), restricted to the committed generation of each day (commit-log.ts).
// One server runs the whole statement. On a cluster every shard runs the statement on its own
// tables and the engine adds the partial sums up: a visitor's events and sessions all live on one
// shard, so every atom (visitor counts included) is a plain sum over shards. (18.16 loses table
// aliases when it rewrites joins over Distributed tables, which rules out pushing the joins through them.)
import { assembleRows, zeroAtoms, type AtomRow, type MetricRow } from '../../domain/query/assemble.js';
import { normalizeSpec, type QuerySpec } from '../../domain/query/query-spec.js';
import type { AnalyticsEngine, RunOptions } from '../../ports/analytics-engine.js';
import { compileQuery, BUCKET_COL, KEY_COL } from '../sql/compile-query.js';
import { clickhouseDialect } from '../sql/dialect.js';
import { siteCoverage, siteGens, visibleRows } from './commit-log.js';
import { engineError, type ClickHouseNode } from './node.js';
import { DAY_MS } from './sessionize.js';
import type { TableLayout } from './schema.js';

export interface ClickHouseEngineParts {
  coordinator: ClickHouseNode;
  shards: ClickHouseNode[];
  layout: TableLayout;
}

function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (v === null || v === undefined) return 0;
  // 64-bit integers come as strings if a server ignores output_format_json_quote_64bit_integers
  if (typeof v === 'string' && /^-?\d+$/.test(v)) {
    const n = Number(v);
    if (!Number.isSafeInteger(n)) throw new Error(`integer out of exact range: ${v}`);
    return n;
  }
  throw new Error(`unexpected numeric value ${String(v)}`);
}

export class ClickHouseAnalyticsEngine implements AnalyticsEngine {
  constructor(private readonly p: ClickHouseEngineParts) {}

  async run(spec: QuerySpec, options: RunOptions): Promise<MetricRow[]> {
    const normalized = normalizeSpec(spec);
    const deadline = Date.now() + options.timeoutMs;
    const L = this.p.layout;
    // sessions by page read the pageviews up to a day after the window (compile-query viewedPages)
    const gens = await this.guard(options.timeoutMs, (settings, signal) =>
      siteGens(this.p.coordinator, L.days, normalized.siteId, normalized.startMs, normalized.endMs + DAY_MS, { settings, signal }),
    );
    const rowFilter = visibleRows(gens);
    const sharded = L.cluster !== null;
    const compiled = compileQuery(
      normalized,
      clickhouseDialect,
      { events: L.eventsLocal, sessions: L.sessionsLocal },
      { rowFilter, partial: sharded },
    );
    const remaining = Math.max(1, deadline - Date.now());
    const nodes = sharded ? this.p.shards : [this.p.coordinator];
    const results = await this.guard(remaining, (settings, signal) =>
      Promise.all(nodes.map((n) => n.query<Record<string, unknown>>(compiled.sql, { settings, signal }))),
    );
    const byGroup = new Map<string, AtomRow>();
    const atomRows: AtomRow[] = [];
    for (const rows of results) {
      for (const r of rows) {
        const bucketMs = compiled.hasBucket ? toNumber(r[BUCKET_COL]) : null;
        const key = compiled.hasKey ? ((r[KEY_COL] as string | null) ?? null) : null;
        const id = JSON.stringify([bucketMs, key]);
        let row = byGroup.get(id);
        if (!row) {
          row = { bucketMs, key, atoms: zeroAtoms() };
          byGroup.set(id, row);
          atomRows.push(row);
        }
        for (const a of compiled.atoms) row.atoms[a] += toNumber(r[a]);
      }
    }
    return assembleRows(normalized, atomRows);
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
   * Runs reads under a deadline: the server stops them at max_execution_time (whole seconds on
   * 18.16) and the request is abandoned at the exact timeout; either way EngineError('timeout').
   */
  private async guard<T>(timeoutMs: number, fn: (settings: Record<string, number>, signal: AbortSignal) => Promise<T>): Promise<T> {
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
