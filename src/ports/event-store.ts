// The analytics event store's write and maintenance side: imports and coverage.
// Reads for reports belong to the AnalyticsEngine port (same tables, separate interface).
// Implementations: engines/duckdb (embedded); ClickHouse later. Contract: test/contract/event-store.test.ts.
import type { Channel, StoredEvent } from '../domain/events.js';

/** A stored event plus its channel, computed once at import by ingest/parse/channel.ts (DESIGN 4). */
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
  /** (site, day) pairs whose sessions were rebuilt */
  days: DayRef[];
}

/**
 * The identity of the `occurrence`-th (>= 2) identical copy of `row` inside one batch (DESIGN 8:
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
  /** Same as append, for rows already encoded with encodeEventRows (e.g. received over the admin socket). */
  appendEncoded(ndjson: string, count: number): Promise<void>;
  commit(): Promise<ImportResult>;
  abort(): Promise<void>;
}

export interface SiteCoverage {
  /** ISO instants of the first and last stored event, null without data */
  firstEventAt: string | null;
  lastEventAt: string | null;
  events: number;
}

export interface EventStore {
  beginImport(options?: { reidentify?: Reidentify }): Promise<ImportSession>;
  /** begin + append + commit: all or nothing. */
  importBatch(rows: readonly EventRow[], options?: { reidentify?: Reidentify }): Promise<ImportResult>;
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

/** Field order of an encoded row; every store reads this shape. */
export const EVENT_ROW_FIELDS = [
  'event_id', 'site_id', 'tenant_id', 'ts_ms', 'type', 'profile', 'visitor_key', 'path_canon', 'page_title',
  'referrer_host', 'utm_source', 'utm_medium', 'utm_campaign', 'has_click_id', 'country', 'region', 'city',
  'device_type', 'browser_family', 'os_family', 'traffic_class', 'engagement_time_ms', 'action_name', 'family',
  'event_name', 'action_id', 'action_target_host', 'form_id', 'form_action_path', 'channel',
] as const satisfies readonly (keyof EventRow)[];

/** NDJSON, one JSON object per row with exactly EVENT_ROW_FIELDS: the wire and staging format. */
export function encodeEventRows(rows: readonly EventRow[]): string {
  let out = '';
  for (const r of rows) out += encodeEventRow(r) + '\n';
  return out;
}

export function encodeEventRow(r: EventRow): string {
  // A literal keeps key order and a stable shape whatever object the caller built.
  return JSON.stringify({
    event_id: r.event_id, site_id: r.site_id, tenant_id: r.tenant_id, ts_ms: r.ts_ms, type: r.type,
    profile: r.profile, visitor_key: r.visitor_key, path_canon: r.path_canon, page_title: r.page_title,
    referrer_host: r.referrer_host, utm_source: r.utm_source, utm_medium: r.utm_medium,
    utm_campaign: r.utm_campaign, has_click_id: r.has_click_id, country: r.country, region: r.region,
    city: r.city, device_type: r.device_type, browser_family: r.browser_family, os_family: r.os_family,
    traffic_class: r.traffic_class, engagement_time_ms: r.engagement_time_ms, action_name: r.action_name,
    family: r.family, event_name: r.event_name, action_id: r.action_id, action_target_host: r.action_target_host,
    form_id: r.form_id, form_action_path: r.form_action_path, channel: r.channel,
  });
}
