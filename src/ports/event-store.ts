// The analytics event store's write and maintenance side: imports and coverage.
// Reads for reports belong to the AnalyticsEngine port (same tables, separate interface).
// Implementations: engines/duckdb (embedded); ClickHouse later. Contract: test/contract/event-store.test.ts.
import type { Channel, StoredEvent } from '../domain/events.js';

/** A stored event plus its channel, computed once at import by ingest/parse/channel.ts (docs/product.md §4.6). */
export interface EventRow extends StoredEvent {
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
  if (!Number.isSafeInteger(cp.position) || cp.position < 0) throw new Error(`checkpoint position must be a non-negative safe integer, got ${cp.position}`);
  return cp;
}

export interface ImportOptions {
  reidentify?: Reidentify;
  /** stored by commit() with the rows, even when they change nothing (all duplicates) */
  checkpoint?: Checkpoint;
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
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * EventStore.importBatch for any store: one session, begun, given the rows and committed; a failed
 * append aborts the session, so nothing of the batch is stored.
 */
export async function importInOneSession(store: Pick<EventStore, 'beginImport'>, rows: readonly EventRow[], options: ImportOptions = {}): Promise<ImportResult> {
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
  'event_id', 'site_id', 'tenant_id', 'ts_ms', 'type', 'profile', 'visitor_key', 'path_canon', 'page_title',
  'referrer_host', 'utm_source', 'utm_medium', 'utm_campaign', 'has_click_id', 'country', 'region', 'city',
  'device_type', 'browser_family', 'os_family', 'traffic_class', 'engagement_time_ms', 'action_name', 'family',
  'event_name', 'action_id', 'action_target_host', 'form_id', 'form_action_path', 'channel',
] as const satisfies readonly (keyof EventRow)[];

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
    r.event_id, r.site_id, r.tenant_id, r.ts_ms, r.type, r.profile, r.visitor_key, r.path_canon, r.page_title,
    r.referrer_host, r.utm_source, r.utm_medium, r.utm_campaign, r.has_click_id, r.country, r.region, r.city,
    r.device_type, r.browser_family, r.os_family, r.traffic_class, r.engagement_time_ms, r.action_name, r.family,
    r.event_name, r.action_id, r.action_target_host, r.form_id, r.form_action_path, r.channel,
  ]);
}

/** One line of encodeEventRows back to its row. */
export function decodeEventRow(line: string): EventRow {
  const values = JSON.parse(line) as unknown[];
  if (!Array.isArray(values) || values.length !== EVENT_ROW_FIELDS.length) throw new Error('not an encoded event row');
  const row: Partial<Record<keyof EventRow, unknown>> = {};
  for (let i = 0; i < EVENT_ROW_FIELDS.length; i++) row[EVENT_ROW_FIELDS[i]] = values[i];
  // Only lines encodeEventRow wrote come here: their values are trusted to be EventRow's, not checked one by one.
  return row as EventRow;
}
