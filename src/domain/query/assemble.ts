// Assemble stage: atom rows from an engine -> metric rows, sorted and cut as docs/product.md §8.12 says.
// Pure, so every engine's output goes through the same rules.
import { DAY_MS } from '../report-range.js';
import { ATOMS, metricValue, presenceAtom, type AtomValues, type Metric } from './metrics.js';
import type { Interval, NormalizedSpec } from './query-spec.js';

export const HOUR_MS = 3_600_000;

/** One grouped row as engines return it: integer atom sums. */
export interface AtomRow {
  /** bucket start (ms), present when the spec has an interval */
  bucketMs: number | null;
  /** dimension value, present when the spec has a dimension; null = none */
  key: string | null;
  /** splitBy value, present when the spec has one; null = none */
  split?: string | null;
  atoms: AtomValues;
}

export interface MetricRow {
  bucketMs: number | null;
  key: string | null;
  /** only when the spec has splitBy */
  split?: string | null;
  values: Record<Metric, number>;
  atoms: AtomValues;
}

export function zeroAtoms(): AtomValues {
  return Object.fromEntries(ATOMS.map((a) => [a, 0])) as AtomValues;
}

/** The atoms of rows added up: over rows that partition a window (its buckets), every atom but visitors sums to the window's. */
export function sumAtoms(rows: readonly { atoms: AtomValues }[]): AtomValues {
  const atoms = zeroAtoms();
  for (const r of rows) for (const a of ATOMS) atoms[a] += r.atoms[a];
  return atoms;
}

/** Code-point order (not UTF-16 unit order), null last: the order SQL engines give UTF-8 bytes. */
export function compareKeys(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done) return y.done ? 0 : -1;
    if (y.done) return 1;
    const cx = x.value.codePointAt(0)!;
    const cy = y.value.codePointAt(0)!;
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
}

function valuesOf(metrics: readonly Metric[], atoms: AtomValues): Record<Metric, number> {
  const out = {} as Record<Metric, number>;
  for (const m of metrics) out[m] = metricValue(m, atoms);
  return out;
}

/**
 * Metric values from atom rows. Breakdowns drop rows without data for the sort metric (value 0,
 * or a zero denominator for rates), sort by value desc then key (code points, null last) and keep
 * `limit`; series sort by bucket then the same. A plain total is always exactly one row.
 */
export function assembleRows(spec: NormalizedSpec, rows: readonly AtomRow[]): MetricRow[] {
  let out: MetricRow[] = rows.map((r) => ({
    bucketMs: spec.interval ? r.bucketMs : null,
    key: spec.dimension ? r.key : null,
    ...(spec.splitBy ? { split: r.split ?? null } : {}),
    atoms: r.atoms,
    values: valuesOf(spec.metrics, r.atoms),
  }));
  if (!spec.dimension && !spec.interval) {
    const atoms = sumAtoms(rows);
    return [{ bucketMs: null, key: null, atoms, values: valuesOf(spec.metrics, atoms) }];
  }
  if (spec.dimension) {
    const presence = presenceAtom(spec.orderBy);
    out = out.filter((r) => r.atoms[presence] !== 0);
  }
  const byValue = (a: MetricRow, b: MetricRow) =>
    b.values[spec.orderBy] - a.values[spec.orderBy] || compareKeys(a.key, b.key) || compareKeys(a.split ?? null, b.split ?? null);
  out.sort(spec.interval ? (a, b) => a.bucketMs! - b.bucketMs! || byValue(a, b) : byValue);
  if (spec.limit !== undefined) out = out.slice(0, spec.limit);
  return out;
}

/** Bucket starts covering [startMs, endMs]: UTC days or hours. */
export function seriesBuckets(startMs: number, endMs: number, interval: Interval): number[] {
  const size = interval === 'day' ? DAY_MS : HOUR_MS;
  const out: number[] = [];
  for (let b = Math.floor(startMs / size) * size; b <= endMs; b += size) out.push(b);
  return out;
}

/**
 * A dense series over a display window (usually the requested range, which may be wider than the
 * counting window of an extended-only query): one row per bucket, zero-filled.
 */
export function denseSeries(
  rows: readonly MetricRow[],
  window: { startMs: number; endMs: number; interval: Interval; metrics: readonly Metric[] },
): MetricRow[] {
  const byBucket = new Map<number, MetricRow>();
  for (const r of rows) if (r.bucketMs !== null) byBucket.set(r.bucketMs, r);
  return seriesBuckets(window.startMs, window.endMs, window.interval).map((b) => {
    const found = byBucket.get(b);
    if (found) return found;
    const atoms = zeroAtoms();
    return { bucketMs: b, key: null, atoms, values: valuesOf(window.metrics, atoms) };
  });
}
