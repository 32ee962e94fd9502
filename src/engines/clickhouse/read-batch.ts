// Reads issued together (a report builder's Promise.all) go out together: one version lookup, and on
// each server up to PARALLEL_STATEMENTS statements side by side (one per read when there are no more
// reads than that). Reads beyond it share statements: each read's statement becomes a branch of a
// UNION ALL that tags its rows with the read's number and carries them as an array of text (every
// branch then has the same columns); the rows are decoded back with the read's own column list.
// Reads are grouped by site and pinned data version; each keeps its own deadline. Reads that can be
// answered by one statement (BatchTarget.share: rollup reads of one slice) are, before any of this:
// every statement has a fixed cost on every server, and the servers share the machine's cores.
import { setMaxListeners } from 'node:events';
import { EngineError } from '../../domain/errors.js';
import { encodeClickHouseLiteral as lit } from '../sql/clickhouse-literal.js';
import type { Shard } from './commit-log.js';
import { engineError } from './node.js';

type Row = Record<string, unknown>;

/** SQL text per statement at most (ClickHouse refuses statements over max_query_size, 256 KiB by default). */
const MAX_STATEMENT_CHARS = 200_000;

/**
 * Statements per server a batch runs at once (under the client's 10 sockets per server): 18.16 runs a
 * UNION ALL's branches little better than one after the other, so reads run side by side as
 * statements of their own, and only reads beyond this many share one (round robin).
 */
const PARALLEL_STATEMENTS = 8;

/** One read's statement on one server, with its result columns. */
export interface ServerStatement {
  sql: string;
  columns: readonly string[];
  /** columns holding text; the others come back as integers (or NULL) */
  text: readonly string[];
}

export interface BatchedRead<T> {
  siteId: string;
  /** the pinned data version, or undefined: the batch reads the current one */
  asOf: string | undefined;
  timeoutMs: number;
  /** the read's statement for one server, given the newest generation it may see */
  statement(server: Shard, gen: number): ServerStatement;
  /** the answer from every server's rows (in server order) */
  finish(partials: Row[][]): T;
  /** reads of a batch with equal keys are offered to BatchTarget.share together (`member` describes this one) */
  share?: { key: string; member: unknown };
}

/** A statement several reads share, and each read's rows of its result (in the read's own statement's columns). */
export interface SharedStatement extends ServerStatement {
  split(rows: Row[]): Row[][];
}

/** Reads going out as one statement: one read (its own statement) or several sharing one. */
type Unit = { reads: number[]; members?: unknown[] };

interface Pending {
  read: BatchedRead<unknown>;
  resolve(v: unknown): void;
  reject(e: unknown): void;
  settled: boolean;
}

export interface BatchTarget {
  servers: Shard[];
  /** the newest generation of a site's current data version */
  currentGen(siteId: string, settings: Record<string, number>, signal: AbortSignal): Promise<number>;
  genOf(version: string): number;
  /** how reads with equal share keys share statements */
  share?: {
    /** the members as lists of indexes, each list one statement (a list of one: that read's own statement) */
    group(members: unknown[]): number[][];
    statement(members: unknown[], server: Shard, gen: number): SharedStatement;
  };
}

export class ReadBatcher {
  private queue: Pending[] = [];
  private scheduled = false;

  constructor(private readonly target: BatchTarget) {}

  read<T>(read: BatchedRead<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ read: read as BatchedRead<unknown>, resolve: resolve as (v: unknown) => void, reject, settled: false });
      if (!this.scheduled) {
        this.scheduled = true;
        // after the current turn's synchronous calls and microtasks: everything a Promise.all started
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const groups = new Map<string, Pending[]>();
    for (const p of this.queue) {
      const key = JSON.stringify([p.read.siteId, p.read.asOf ?? null]);
      groups.set(key, [...(groups.get(key) ?? []), p]);
    }
    this.queue = [];
    for (const group of groups.values()) void this.run(group);
  }

  private async run(group: Pending[]): Promise<void> {
    const ac = new AbortController();
    // every statement of the batch listens to it
    setMaxListeners(0, ac.signal);
    const timeoutMs = Math.max(...group.map((p) => p.read.timeoutMs));
    const settle = (p: Pending, fn: () => void) => {
      if (p.settled) return;
      p.settled = true;
      fn();
      if (group.every((x) => x.settled)) ac.abort();
    };
    // each read gives up at its own deadline; the statement stops when every read has
    const timers = group.map((p) => setTimeout(() => settle(p, () => p.reject(new EngineError('timeout'))), p.read.timeoutMs));
    const settings = { max_execution_time: Math.max(1, Math.ceil(timeoutMs / 1000)) };
    try {
      const first = group[0].read;
      const gen =
        first.asOf !== undefined ? this.target.genOf(first.asOf) : await this.target.currentGen(first.siteId, settings, ac.signal);
      const units = this.units(group);
      const perServer = await Promise.all(this.target.servers.map((s) => this.runOn(s, group, units, gen, settings, ac.signal)));
      group.forEach((p, i) => {
        try {
          const value = p.read.finish(perServer.map((rows) => rows[i]));
          settle(p, () => p.resolve(value));
        } catch (e) {
          settle(p, () => p.reject(e));
        }
      });
    } catch (e) {
      const err = ac.signal.aborted ? new EngineError('timeout', e) : engineError(e, false);
      for (const p of group) settle(p, () => p.reject(err));
    } finally {
      for (const t of timers) clearTimeout(t);
    }
  }

  /** The batch's reads as statements: reads sharing a key as BatchTarget.share groups them, the others alone. */
  private units(group: Pending[]): Unit[] {
    const share = this.target.share;
    const units: Unit[] = [];
    const byKey = new Map<string, number[]>();
    group.forEach((p, i) => {
      const key = share && p.read.share?.key;
      if (key === undefined) units.push({ reads: [i] });
      else byKey.set(key, [...(byKey.get(key) ?? []), i]);
    });
    for (const reads of byKey.values()) {
      const members = reads.map((i) => group[i].read.share!.member);
      for (const list of share!.group(members)) {
        units.push(
          list.length === 1 ? { reads: [reads[list[0]]] } : { reads: list.map((j) => reads[j]), members: list.map((j) => members[j]) },
        );
      }
    }
    return units;
  }

  /** Every read's rows on one server, by read: up to PARALLEL_STATEMENTS statements side by side (more when the reads' SQL is long). */
  private async runOn(
    server: Shard,
    group: Pending[],
    units: Unit[],
    gen: number,
    settings: Record<string, number>,
    signal: AbortSignal,
  ): Promise<Row[][]> {
    const statements: (ServerStatement | SharedStatement)[] = units.map((u) =>
      u.members ? this.target.share!.statement(u.members, server, gen) : group[u.reads[0]].read.statement(server, gen),
    );
    const lanes = Math.min(PARALLEL_STATEMENTS, statements.length);
    const chunks: number[][] = [];
    for (let lane = 0; lane < lanes; lane++) {
      let size = 0;
      chunks.push([]);
      for (let i = lane; i < statements.length; i += lanes) {
        const st = statements[i];
        if (size + st.sql.length > MAX_STATEMENT_CHARS && chunks[chunks.length - 1].length) {
          chunks.push([]);
          size = 0;
        }
        chunks[chunks.length - 1].push(i);
        size += st.sql.length + 100;
      }
    }
    const rows = await Promise.all(
      chunks.map((c) =>
        this.statement(
          server,
          c.map((i) => statements[i]),
          settings,
          signal,
        ),
      ),
    );
    const out: Row[][] = [];
    chunks.forEach((c, j) => {
      c.forEach((i, k) => {
        const st = statements[i];
        const u = units[i];
        if ('split' in st)
          st.split(rows[j][k]).forEach((r, m) => {
            out[u.reads[m]] = r;
          });
        else out[u.reads[0]] = rows[j][k];
      });
    });
    return out;
  }

  private async statement(
    server: Shard,
    statements: ServerStatement[],
    settings: Record<string, number>,
    signal: AbortSignal,
  ): Promise<Row[][]> {
    if (statements.length === 1) return [await server.node.query<Row>(statements[0].sql, { settings, signal })];
    const branches = statements.map((st, i) => {
      const values = st.columns.map((c) => (st.text.includes(c) ? c : `toString(${c})`));
      return `SELECT ${lit(i)} AS q, CAST([${values.join(', ')}] AS Array(Nullable(String))) AS r FROM (${st.sql})`;
    });
    const rows = await server.node.query<{ q: number; r: (string | null)[] }>(branches.join(' UNION ALL '), { settings, signal });
    const out: Row[][] = statements.map(() => []);
    for (const { q, r } of rows) {
      const st = statements[Number(q)];
      const row: Row = {};
      st.columns.forEach((c, j) => {
        const v = r[j];
        row[c] = v === null || st.text.includes(c) ? v : Number(v);
      });
      out[Number(q)].push(row);
    }
    return out;
  }
}
