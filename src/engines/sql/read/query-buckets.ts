// A query API bucket (QueryBucketing) of an instant, twice: as SQL over a timestamp column (the reads)
// and in TypeScript (the quarter-hour planner, which must know where the SQL puts each quarter). The two
// are one rule written side by side; test/engines/query-quarters.test.ts holds them to each other.
import type { QueryBucketing } from '../../../domain/query-api/query-groups.js';
import { DAY_MS } from '../../../domain/report-range.js';
import type { Dialect } from '../dialect.js';
import { int } from './sql-writer.js';

const HOUR_MS = 3_600_000;

/** The bucket key of `ts` (SQL, integer milliseconds) under `b`. */
export function bucketSql(d: Dialect, b: QueryBucketing, ts: string): string {
  if (b.by === 'edges') {
    // a range inside one month has one edge: a WHEN on it all the same (a CASE needs one, and a constant
    // key would make ClickHouse 18.16 answer a read that finds nothing with a row of zeros)
    const whens = (b.edges.length > 1 ? b.edges.slice(1) : b.edges).map((edge, i) => `WHEN ${ts} < ${int(edge)} THEN ${int(i)}`);
    return `(CASE ${whens.join(' ')} ELSE ${int(b.edges.length - 1)} END)`;
  }
  const [first, ...rest] = b.offsets;
  const offset = rest.length
    ? `(CASE ${[first, ...rest]
        .slice(0, -1)
        .map((o, i) => `WHEN ${ts} < ${int(rest[i].fromMs)} THEN ${int(o.offsetMs)}`)
        .join(' ')} ELSE ${int(rest.at(-1)!.offsetMs)} END)`
    : int(first.offsetMs);
  const local = `(${ts} + ${offset})`;
  if (b.unit === 'hour') return d.intDiv(local, int(HOUR_MS));
  const day = d.intDiv(local, int(DAY_MS));
  // ISO weeks start on Monday; day 0 (1970-01-01) was a Thursday: the Monday of day d is d - (d + 3) % 7
  return b.unit === 'day' ? day : `(${day} - (${day} + 3) % 7)`;
}

/** bucketSql's key of the instant `ts` (non-negative milliseconds), computed here. */
export function bucketAt(b: QueryBucketing, ts: number): number {
  if (b.by === 'edges') {
    const whens = b.edges.length > 1 ? b.edges.slice(1) : b.edges;
    const i = whens.findIndex((edge) => ts < edge);
    return i === -1 ? b.edges.length - 1 : i;
  }
  const [first, ...rest] = b.offsets;
  let offset = rest.length ? rest.at(-1)!.offsetMs : first.offsetMs;
  for (let i = 0; i < rest.length; i++)
    if (ts < rest[i].fromMs) {
      offset = i === 0 ? first.offsetMs : rest[i - 1].offsetMs;
      break;
    }
  const local = ts + offset;
  if (b.unit === 'hour') return Math.floor(local / HOUR_MS);
  const day = Math.floor(local / DAY_MS);
  return b.unit === 'day' ? day : day - ((day + 3) % 7);
}
