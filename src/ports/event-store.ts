// The analytics event store's write and maintenance side: imports and coverage.
// Reads for reports belong to the AnalyticsEngine port (same tables, separate interface).
// Implementations: engines/duckdb (embedded), engines/clickhouse. Contract: test/contract/event-store.contract.ts.
import type { Channel, PropArrays, StoredEvent } from '../domain/events.js';

/**
 * A stored event plus its channel, computed once at import by ingest/parse/channel.ts (docs/product.md §4.6),
 * and its custom properties (two empty arrays for none).
 */
export interface EventRow extends StoredEvent, PropArrays {
  channel: Channel;
}

export interface DayRef {
  site_id: string;
  /** YYYY-MM-DD (UTC) */
  day: string;
}

export interface ImportResult {
  /** events newly stored */
  imported: number;
  /** events already stored (same event_id), left untouched */
  duplicates: number;
  /** (site, day) pairs that gained events or engagement */
  days: DayRef[];
  /** engagement rows added to a pageview, and those that found none (dropped); absent when none was sent */
  engagement?: { applied: number; dropped: number };
}

/**
 * Engagement time a tracker reports for a page it showed (docs/product.md §9, `engagement`): not an event. At
 * commit it is added to the visitor's latest pageview of `path_canon` at or before `ts_ms` on that
 * UTC day (the page being engaged with), among the stored events and those of the same import; with
 * no such pageview it is dropped. Sessions and rollups of that visitor-day follow.
 */
export interface EngagementRow {
  site_id: string;
  visitor_key: string;
  /** when the engagement was reported, ms since epoch; its UTC day is the pageview's */
  ts_ms: number;
  path_canon: string;
  /** engaged time to add, ms (> 0) */
  engagement_ms: number;
}

/**
 * The identity of the `occurrence`-th (>= 2) identical copy of `row` inside one batch (docs/product.md §8.2:
 * identity = content + occurrence number). Rows arrive with their first occurrence's id; the store
 * finds the repeats across the whole batch (the importer cannot, in bounded memory) and asks for these.
 */
export type Reidentify = (row: EventRow, occurrence: number) => string;

/**
 * One logical import: rows are staged chunk by chunk (bounded memory), nothing is visible
 * until commit(), which stores every new row and rebuilds sessions in one transaction.
 * abort(), a failed commit, or a dying process leaves the store as it was.
 */
export interface ImportSession {
  append(rows: readonly EventRow[]): Promise<void>;
  /**
   * Same as append, for rows already encoded with encodeEventRows: as text, or as its UTF-8 bytes
   * (received over the admin socket, passed on without decoding).
   */
  appendEncoded(ndjson: string | Uint8Array, count: number): Promise<void>;
  /** Engagement to apply with this import's events, in the same transaction. */
  appendEngagement(rows: readonly EngagementRow[]): Promise<void>;
  commit(): Promise<ImportResult>;
  abort(): Promise<void>;
}

export interface SiteCoverage {
  /** ISO instants of the first and last stored event, null without data */
  firstEventAt: string | null;
  lastEventAt: string | null;
  events: number;
}

/**
 * Where a loader that reads a log of its own (live collection's spool) stands: committed in the same
 * commit as the rows it loaded, so after a crash the loader resumes exactly where the store is, and a
 * replayed batch (engagement included, which is not idempotent) is never applied twice.
 */
export interface Checkpoint {
  /** the log's identity, e.g. one spool; positions of different sources are independent */
  source: string;
  /** the position after the last record this import holds; a non-negative safe integer */
  position: number;
}

/** The checkpoint of an import (null without one); throws when its position is not a non-negative safe integer. */
export function checkedCheckpoint(cp: Checkpoint | undefined): Checkpoint | null {
  if (!cp) return null;
  if (!Number.isSafeInteger(cp.position) || cp.position < 0)
    throw new Error(`checkpoint position must be a non-negative safe integer, got ${cp.position}`);
  return cp;
}

export interface ImportOptions {
  reidentify?: Reidentify;
  /** stored by commit() with the rows, even when they change nothing (all duplicates) */
  checkpoint?: Checkpoint;
  /**
   * The import's id (`imp_…`, given by the importer): each event it stores first remembers it (a re-import of a stored
   * event keeps the first id), and undoImport(id) removes them. Absent (live collection): the events
   * remember none and no undo can remove them.
   */
  importId?: string;
}

/** A UTC month, `YYYY-MM`. */
export type Month = string;

/** What a purge or a site deletion removed (or, previewed, would remove). */
export interface RemovedData {
  /** UTC days (with events) that went */
  days: number;
  /** first and last of them, YYYY-MM-DD; null when none went */
  firstDay: string | null;
  lastDay: string | null;
  events: number;
  /** events that went, by the UTC month of their own timestamp; months without any left out, in order */
  byMonth: { month: Month; events: number }[];
}

/** One server's tables and their rows (EventStore.tableRows). */
export interface TableRows {
  server: string;
  tables: Record<string, number>;
}

/** What undoImport removed: events per (site, UTC month). */
export interface UndoneImport {
  importId: string;
  events: number;
  /** (site, day)s whose events, sessions and rollups were rebuilt without the import's events */
  days: DayRef[];
  bySiteMonth: { site_id: string; month: Month; events: number }[];
}

/** Events stored for a (site, UTC month), counted at commit (never a scan of events). */
export interface EventCount {
  site_id: string;
  month: Month;
  events: number;
}

/** undoImport of an id no committed import carried. */
export class ImportNotFoundError extends Error {
  readonly code = 'IMPORT_NOT_FOUND';
  constructor(readonly importId: string) {
    super(`no import ${importId} in the event store (footfall import prints the id of each import)`);
    this.name = 'ImportNotFoundError';
  }
}

export interface EventStore {
  beginImport(options?: ImportOptions): Promise<ImportSession>;
  /** begin + append + commit: all or nothing. */
  importBatch(rows: readonly EventRow[], options?: ImportOptions): Promise<ImportResult>;
  /** The position of the newest committed import that carried a checkpoint of `source`, null if none did. */
  checkpoint(source: string): Promise<number | null>;
  /** ISO instant of the site's newest event (freshness), null without data. */
  newestEventAt(siteId: string): Promise<string | null>;
  siteCoverage(siteId: string): Promise<SiteCoverage>;
  /**
   * A token that changes whenever a committed import adds events to the site (response cache keys:
   * an import makes entries computed before it unreachable). Opaque; compare for equality only.
   */
  dataVersion(siteId: string): Promise<string>;
  /**
   * Deletes every stored row of the site's UTC days before `beforeDay` (YYYY-MM-DD, not included):
   * events, sessions, rollups, action rows, page titles. All or nothing per day: reads, and a store
   * after a crash, see each day whole or gone; calling again finishes what a crash left. Event counts
   * (eventCounts) are kept: they are usage history.
   */
  purgeDays(siteId: string, beforeDay: string): Promise<RemovedData>;
  /** What purgeDays would remove now; changes nothing. */
  previewPurge(siteId: string, beforeDay: string): Promise<RemovedData>;
  /**
   * Deletes every stored row of the site, its event counts included, the same all-or-nothing way
   * (calling again finishes what a crash left). The caller stops imports into the site first.
   */
  deleteSiteData(siteId: string): Promise<RemovedData>;
  /**
   * Removes the events the import stored first, rebuilding sessions, rollups, action rows and page titles
   * of every (site, day) they were on, all or nothing; event counts go down by them. Throws
   * ImportNotFoundError for an id no committed import carried; an import already undone removes nothing.
   */
  undoImport(importId: string): Promise<UndoneImport>;
  /** Events stored per (site, month) for every listed site and month (0 when none), sites first, in the order given. */
  eventCounts(query: { siteIds: readonly string[]; months: readonly Month[] }): Promise<EventCount[]>;
  /**
   * Rows stored per table of the store, per server (DuckDB: one, `duckdb`; ClickHouse: `shard N`), as
   * they are stored (ClickHouse's include rows of older generations a read does not see): what a restored
   * backup must hold again (`footfall stats`). Optional: stores of tests need not count.
   */
  tableRows?(): Promise<TableRows[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** `day` when it is a real UTC date written YYYY-MM-DD; throws otherwise (a day bound goes into every store's SQL). */
export function checkedDay(day: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) !== day)
    throw new Error(`not a day (YYYY-MM-DD): ${JSON.stringify(day)}`);
  return day;
}

/** `month` when it is written YYYY-MM (01-12); throws otherwise. */
export function checkedMonth(month: string): Month {
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) throw new Error(`not a month (YYYY-MM): ${JSON.stringify(month)}`);
  return month;
}

/** RemovedData of days that went, each with its events (any order; days with none are left out). */
export function removedData(days: readonly { day: string; events: number }[]): RemovedData {
  const kept = days.filter((d) => d.events > 0).sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
  const byMonth = new Map<Month, number>();
  for (const d of kept) byMonth.set(d.day.slice(0, 7), (byMonth.get(d.day.slice(0, 7)) ?? 0) + d.events);
  return {
    days: kept.length,
    firstDay: kept[0]?.day ?? null,
    lastDay: kept[kept.length - 1]?.day ?? null,
    events: kept.reduce((n, d) => n + d.events, 0),
    byMonth: [...byMonth].map(([month, events]) => ({ month, events })),
  };
}

/** EventCounts for every (site, month) asked, in that order, from the counts stored (others 0). */
export function denseCounts(query: { siteIds: readonly string[]; months: readonly Month[] }, stored: readonly EventCount[]): EventCount[] {
  const of = new Map(stored.map((c) => [`${c.site_id}\u0000${c.month}`, c.events]));
  return query.siteIds.flatMap((site_id) =>
    query.months.map((month) => ({ site_id, month, events: of.get(`${site_id}\u0000${month}`) ?? 0 })),
  );
}

/**
 * EventStore.importBatch for any store: one session, begun, given the rows and committed; a failed
 * append aborts the session, so nothing of the batch is stored.
 */
export async function importInOneSession(
  store: Pick<EventStore, 'beginImport'>,
  rows: readonly EventRow[],
  options: ImportOptions = {},
): Promise<ImportResult> {
  const session = await store.beginImport(options);
  try {
    await session.append(rows);
  } catch (err) {
    await session.abort();
    throw err;
  }
  return session.commit();
}

/** Field order of an encoded row; every store reads this shape. */
export const EVENT_ROW_FIELDS = [
  'event_id',
  'site_id',
  'tenant_id',
  'ts_ms',
  'type',
  'profile',
  'visitor_key',
  'path_canon',
  'page_title',
  'referrer_host',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'has_click_id',
  'country',
  'region',
  'city',
  'device_type',
  'browser_family',
  'os_family',
  'traffic_class',
  'engagement_time_ms',
  'action_name',
  'family',
  'event_name',
  'action_id',
  'action_target_host',
  'form_id',
  'form_action_path',
  'channel',
  // last: a row of the release before them is the fields above (see decodedValues)
  'prop_keys',
  'prop_values',
] as const satisfies readonly (keyof EventRow)[];

/** The custom property fields, the last two of a row: absent from the rows of the release before them. */
export const PROP_FIELDS = ['prop_keys', 'prop_values'] as const;

/**
 * NDJSON, one JSON array per row holding EVENT_ROW_FIELDS' values in that order: the wire (admin
 * socket) and staging format. No key names on the wire; and since the rest of the array is the
 * identity's canonical content (ingest/parse/identity.ts), an importer that has just hashed a row
 * has its encoding for the price of a string concatenation.
 */
export function encodeEventRows(rows: readonly EventRow[]): string {
  let out = '';
  for (const r of rows) out += encodeEventRow(r) + '\n';
  return out;
}

export function encodeEventRow(r: EventRow): string {
  return JSON.stringify([
    r.event_id,
    r.site_id,
    r.tenant_id,
    r.ts_ms,
    r.type,
    r.profile,
    r.visitor_key,
    r.path_canon,
    r.page_title,
    r.referrer_host,
    r.utm_source,
    r.utm_medium,
    r.utm_campaign,
    r.has_click_id,
    r.country,
    r.region,
    r.city,
    r.device_type,
    r.browser_family,
    r.os_family,
    r.traffic_class,
    r.engagement_time_ms,
    r.action_name,
    r.family,
    r.event_name,
    r.action_id,
    r.action_target_host,
    r.form_id,
    r.form_action_path,
    r.channel,
    r.prop_keys,
    r.prop_values,
  ]);
}

/**
 * An encoded row's values (a parsed line of encodeEventRows), those of the release before custom properties
 * included: the spool of an upgraded server, or an older `footfall import` talking to a newer server,
 * may hold them, and they mean an event without props. Throws for anything else.
 */
export function decodedValues(values: unknown): unknown[] {
  if (Array.isArray(values)) {
    if (values.length === EVENT_ROW_FIELDS.length) return values;
    if (values.length === EVENT_ROW_FIELDS.length - PROP_FIELDS.length) return [...values, [], []];
  }
  throw new Error('not an encoded event row');
}

/** One line of encodeEventRows back to its row. */
export function decodeEventRow(line: string): EventRow {
  const values = decodedValues(JSON.parse(line));
  const row: Partial<Record<keyof EventRow, unknown>> = {};
  for (let i = 0; i < EVENT_ROW_FIELDS.length; i++) row[EVENT_ROW_FIELDS[i]] = values[i];
  // Only lines encodeEventRow wrote come here: their values are trusted to be EventRow's, not checked one by one.
  return row as EventRow;
}
