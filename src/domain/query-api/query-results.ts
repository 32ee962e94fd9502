// The query API's results from the engines' grouped sums: one row per group with the dimensions in the
// order asked (time as its bucket's label, no value as "(none)"), the metrics (query-metrics.ts), sorted
// by order_by (default: time ascending, then the first metric descending; ties by the dimensions'
// values), cut by pagination; with a comparison, each row's values in the other window and the change.
import { compareKeys } from '../query/assemble.js';
import { isTimeDimension, type QueryBody, type QueryDimension, type QueryMetric } from './query-body.js';
import { type Bases, changeOf, metricOf, type QueryAtoms } from './query-metrics.js';

/** A grouped row as the engines return it (ports QueryRow): keys of the dimensions other than time, in order. */
export interface GroupedRow {
  keys: (string | null)[];
  bucket: number | null;
  atoms: QueryAtoms;
}

export interface ResultRow {
  dimensions: (string | number)[];
  metrics: number[];
  comparison?: { dimensions: (string | number)[]; metrics: number[]; change: number[] };
}

/** One window's rows and what their shares are shares of. */
export interface WindowRows {
  rows: readonly GroupedRow[];
  /** the bucket's label (time dimensions) */
  label(bucket: number): string;
  /** every bucket's label in order: a comparison row matches the bucket at the same position */
  labels: readonly string[];
  /** total visitors by bucket (null key without a time dimension): percentage */
  totals?: ReadonlyMap<number | null, number>;
  /** visitors before the goal filter, by bucket: conversion_rate */
  conversionBases?: ReadonlyMap<number | null, number>;
  /** visitors before the goal filter, by the other groups' keys and bucket: group_conversion_rate */
  groupBases?: ReadonlyMap<string, number>;
  /** which keys of a row identify its group base (the groups other than event:goal) */
  baseKeys?(keys: readonly (string | null)[]): (string | null)[];
}

export const NONE = '(none)';

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

/** A country code as its English name (visit:country_name); unknown codes as they are. */
function countryName(code: string): string {
  try {
    return regionNames.of(code) ?? code;
  } catch {
    return code;
  }
}

export const groupBaseKey = (keys: readonly (string | null)[], bucket: number | null) => JSON.stringify([keys, bucket]);

function valuesOf(body: QueryBody, w: WindowRows, row: GroupedRow): number[] {
  const bases: Bases = {
    total: w.totals?.get(row.bucket) ?? 0,
    conversionBase: w.conversionBases?.get(row.bucket) ?? 0,
    groupBase: w.baseKeys ? (w.groupBases?.get(groupBaseKey(w.baseKeys(row.keys), row.bucket)) ?? 0) : 0,
  };
  return body.metrics.map((m) => metricOf(m, row.atoms, bases));
}

function dimensionsOf(dimensions: readonly QueryDimension[], w: WindowRows, row: GroupedRow): (string | number)[] {
  let k = 0;
  return dimensions.map((d) => {
    if (isTimeDimension(d)) return w.label(row.bucket!);
    const key = row.keys[k++];
    if (key === null) return NONE;
    return d === 'visit:country_name' ? countryName(key) : key;
  });
}

/** Identity of a row's group for matching comparison rows: its keys, and its bucket's position. */
function matchKey(w: WindowRows, row: GroupedRow): string {
  return JSON.stringify([row.keys, row.bucket === null ? null : w.labels.indexOf(w.label(row.bucket))]);
}

/** A row's dimensions in the comparison window where it has no row: the bucket at the same position, if any. */
function comparedDimensions(
  dims: readonly QueryDimension[],
  current: WindowRows,
  compare: WindowRows,
  row: GroupedRow,
): (string | number)[] {
  let k = 0;
  const position = row.bucket === null ? -1 : current.labels.indexOf(current.label(row.bucket));
  return dims.map((d) => {
    if (isTimeDimension(d)) return compare.labels[position] ?? NONE;
    const key = row.keys[k++];
    return key === null ? NONE : d === 'visit:country_name' ? countryName(key) : key;
  });
}

/** The rows of a query, sorted and paginated, and how many there were before pagination. */
export function queryResults(
  body: QueryBody,
  current: WindowRows,
  compare: WindowRows | null,
): { results: ResultRow[]; totalRows: number } {
  const dims = body.dimensions;
  const rows = current.rows
    .map((row) => ({ row, values: valuesOf(body, current, row) }))
    // a group none of whose metrics counts anything is not a row (pageviews by event name: the actions' names)
    .filter((r) => !dims.some((d) => !isTimeDimension(d)) || r.values.some((v) => v !== 0));
  const metricAt = (m: string) => body.metrics.indexOf(m as QueryMetric);
  const keyed: QueryDimension[] = dims.filter((x) => !isTimeDimension(x));
  const keyAt = (d: QueryDimension) => keyed.indexOf(d);
  const order: [string, 'asc' | 'desc'][] = body.orderBy.length
    ? [...body.orderBy]
    : [...dims.filter(isTimeDimension).map((d): [string, 'asc'] => [d, 'asc']), [body.metrics[0], 'desc']];
  // ties broken by every dimension ascending, so pages of a result never overlap
  for (const d of dims) if (!order.some(([n]) => n === d)) order.push([d, 'asc']);
  rows.sort((a, b) => {
    for (const [name, dir] of order) {
      const sign = dir === 'asc' ? 1 : -1;
      let c: number;
      const m = metricAt(name);
      if (m >= 0) c = a.values[m] - b.values[m];
      else if (isTimeDimension(name)) c = (a.row.bucket ?? 0) - (b.row.bucket ?? 0);
      else c = compareKeys(a.row.keys[keyAt(name as QueryDimension)], b.row.keys[keyAt(name as QueryDimension)]);
      if (c !== 0) return sign * c;
    }
    return 0;
  });
  const page = rows.slice(body.pagination.offset, body.pagination.offset + body.pagination.limit);
  const before = compare ? new Map(compare.rows.map((r) => [matchKey(compare, r), r])) : null;
  const results = page.map(({ row, values }): ResultRow => {
    const out: ResultRow = { dimensions: dimensionsOf(dims, current, row), metrics: values };
    if (compare && before) {
      const other = before.get(matchKey(current, row));
      const otherValues = other ? valuesOf(body, compare, other) : body.metrics.map(() => 0);
      out.comparison = {
        dimensions: other ? dimensionsOf(dims, compare, other) : comparedDimensions(dims, current, compare, row),
        metrics: otherValues,
        change: body.metrics.map((m, i) => changeOf(m, values[i], otherValues[i])),
      };
    }
    return out;
  });
  return { results, totalRows: rows.length };
}
