// Compiled reads other than QuerySpecs (action rows, goal matches, page titles): the statement, and
// how partial results of it combine when several servers each answer for their own rows (a
// sharded store: a visitor's events and sessions live on one shard, so every count here is a sum
// over shards, the newest match a maximum, the latest title the one with the greatest order).
// Partial results of a QuerySpec combine too: its grouped atom sums, added per group (sumAtomRows).
import { zeroAtoms, type AtomRow } from '../../../domain/query/assemble.js';
import { BUCKET_COL, KEY_COL, SPLIT_COL, type CompiledQuery } from './compile-query.js';
import type { CompiledSql, RowFilter } from './sql-writer.js';

export interface CompiledRead extends CompiledSql {
  /** every result column, in order */
  columns: readonly string[];
  /** the result columns holding text (the others hold integers or NULL) */
  text: readonly string[];
  /** result columns that identify a group */
  keys: readonly string[];
  /** how each other result column combines across partial results */
  merge: Readonly<Record<string, 'sum' | 'max'>>;
  /** rows of one group keep the values of the row greatest by these columns (compared in order) */
  latestBy?: readonly string[];
}

type Row = Record<string, unknown>;

/**
 * One statement answering several reads (compile-rollup-slice.ts, compile-actions-slice.ts): its
 * result columns, those holding text, and each read's rows of its result, in the read's own order.
 */
export interface CompiledShared {
  sql: string;
  columns: string[];
  text: string[];
  split(rows: readonly Row[]): Row[][];
}

/** Options of a shared statement: the table read and the rows a store may read. */
export interface SharedOptions {
  table?: string;
  rowFilter?: RowFilter;
}

/** An integer result: bigint (DuckDB), number, or a string (64-bit integers in ClickHouse JSON). */
export function toInt(v: unknown): number {
  if (v === null || v === undefined) return 0;
  const n = typeof v === 'bigint' ? Number(v) : typeof v === 'string' ? Number(v) : (v as number);
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw new Error(`not an exact integer: ${String(v)}`);
  return n;
}

/** An integer result that may be NULL (e.g. the max of nothing). */
export function toIntOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : toInt(v);
}

export function toStr(v: unknown): string | null {
  return v === null || v === undefined ? null : String(v);
}

/** Byte order of UTF-8 strings (what SQL engines compare), numbers numerically. */
function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
  const x = toInt(a);
  const y = toInt(b);
  return x === y ? 0 : x < y ? -1 : 1;
}

/** Combines partial results of one compiled read (one list per server) into the whole answer. */
export function mergePartials(read: CompiledRead, partials: readonly Row[][]): Row[] {
  if (partials.length === 1) return partials[0];
  const groups = new Map<string, Row>();
  const later = (a: Row, b: Row) => {
    for (const c of read.latestBy ?? []) {
      const d = compareValues(a[c], b[c]);
      if (d !== 0) return d > 0;
    }
    return false;
  };
  for (const rows of partials) {
    for (const r of rows) {
      // (DuckDB gives 64-bit integers as bigint, which JSON cannot write)
      const id = JSON.stringify(read.keys.map((k) => (typeof r[k] === 'bigint' ? Number(r[k]) : (r[k] ?? null))));
      const cur = groups.get(id);
      if (!cur) {
        groups.set(id, { ...r });
        continue;
      }
      if (read.latestBy && later(r, cur)) {
        const merged = { ...r };
        for (const [c, how] of Object.entries(read.merge)) merged[c] = combine(how, cur[c], r[c]);
        groups.set(id, merged);
      } else {
        for (const [c, how] of Object.entries(read.merge)) cur[c] = combine(how, cur[c], r[c]);
      }
    }
  }
  return [...groups.values()];
}

function combine(how: 'sum' | 'max', a: unknown, b: unknown): number | null {
  if (how === 'sum') return toInt(a) + toInt(b);
  const x = toIntOrNull(a);
  const y = toIntOrNull(b);
  return x === null ? y : y === null ? x : Math.max(x, y);
}

type AtomColumns = Pick<CompiledQuery, 'hasBucket' | 'hasKey' | 'hasSplit' | 'atoms'>;

/**
 * One result row of a compiled spec as an atom row. Integers come as bigint (DuckDB) or strings
 * (ClickHouse): toInt reads either.
 */
export function atomRowOf(q: AtomColumns, r: Row): AtomRow {
  const atoms = zeroAtoms();
  for (const a of q.atoms) atoms[a] = toInt(r[a]);
  return {
    bucketMs: q.hasBucket ? toInt(r[BUCKET_COL]) : null,
    key: q.hasKey ? ((r[KEY_COL] as string | null) ?? null) : null,
    ...(q.hasSplit ? { split: (r[SPLIT_COL] as string | null) ?? null } : {}),
    atoms,
  };
}

/**
 * The atom rows of a compiled spec's partial results (several servers' rows, or the rollups' days
 * and the live days' events, or a shared statement's finer groups), added per (bucket, key, split):
 * every atom is a sum over visitor-days. Groups keep the order they first appear in. (One statement
 * that groups by them all needs no sum: atomRowOf each row.)
 */
export function sumAtomRows(q: AtomColumns, partials: readonly (readonly Row[])[]): AtomRow[] {
  const byGroup = new Map<string, AtomRow>();
  for (const rows of partials) {
    for (const r of rows) {
      const row = atomRowOf(q, r);
      const id = JSON.stringify([row.bucketMs, row.key, row.split]);
      const into = byGroup.get(id);
      if (!into) byGroup.set(id, row);
      else for (const a of q.atoms) into.atoms[a] += row.atoms[a];
    }
  }
  return [...byGroup.values()];
}
