// The import pipeline (DESIGN 2, 3, 8): lines -> parse -> validate -> normalize -> identity ->
// store, in chunks, as ONE logical import: nothing is visible until the whole input is read and
// committed; a bad line is rejected with its number and reason while the rest import.
import type { CatalogStore } from '../../ports/catalog-store.js';
import type { EventRow, ImportResult } from '../../ports/event-store.js';
import { validateEventLine } from '../parse/validate.js';
import { normalizeEvent, type NormalizeSite } from '../parse/normalize.js';
import { eventIdentity } from '../parse/identity.js';
import { accessLogToRawEvent, parseAccessLogLine, type AccessLogFormat } from '../parse/access-log.js';
import type { RawEvent } from '../parse/raw-event.js';
import { parseUserAgent, type ParsedUserAgent } from '../parse/user-agent.js';
import { dailyVisitorKey } from '../parse/visitor-key.js';
import { utcDayOf } from '../parse/timestamp.js';

/** Where rows go: an ImportSession of the store, or the admin socket client that forwards to one. */
export interface ImportSink {
  append(rows: readonly EventRow[]): Promise<void>;
  commit(): Promise<ImportResult>;
  abort(): Promise<void>;
}

export type LineFormat = { kind: 'events' } | { kind: 'access-log'; format: AccessLogFormat };

export interface ImportOptions {
  format: LineFormat;
  catalog: Pick<CatalogStore, 'getSite' | 'getTenant' | 'getOrCreateSecret'>;
  sink: ImportSink;
  /** `--site`: lines without site_id belong to it; required for access logs */
  defaultSiteId?: string;
  nowMs: number;
  /** rows per chunk handed to the sink */
  chunkSize?: number;
  /** errors kept in the summary (the counts are always complete) */
  maxErrors?: number;
  onProgress?: (p: { lines: number; rejected: number }) => void;
}

export interface ImportError {
  line: number;
  reason: string;
}

export interface ImportSummary {
  imported: number;
  rejected: number;
  /** valid lines not stored by rule: actions the strict profile drops, access-log requests that are not pageviews */
  skipped: number;
  duplicates: number;
  lines: number;
  errors: ImportError[];
  /** true when errors holds only the first maxErrors of `rejected` */
  errors_truncated: boolean;
}

export const VISITOR_SALT_SECRET = 'visitor-salt';
export const DEFAULT_CHUNK_SIZE = 50_000;

/**
 * Runs one import over batches of lines. Line numbers are 1-based over the whole input, blank
 * lines included (they are ignored, not rejected). On any failure of the sink the import is
 * aborted and the error rethrown: nothing of it is stored.
 */
export async function importLines(batches: AsyncIterable<string[]>, opts: ImportOptions): Promise<ImportSummary> {
  const chunkSize = opts.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const maxErrors = opts.maxErrors ?? 100;
  const secret = await opts.catalog.getOrCreateSecret(VISITOR_SALT_SECRET);
  const sites = new Map<string, NormalizeSite | null>();
  const tenants = new Map<string, string | null>(); // tenant id -> its site id
  const summary: ImportSummary = {
    imported: 0, rejected: 0, skipped: 0, duplicates: 0, lines: 0, errors: [], errors_truncated: false,
  };
  const reject = (line: number, reason: string) => {
    summary.rejected++;
    if (summary.errors.length < maxErrors) summary.errors.push({ line, reason });
    else summary.errors_truncated = true;
  };

  let chunk: EventRow[] = [];
  // One append in flight while the next chunk is prepared: DuckDB loads on its own threads.
  let pending: Promise<void> | null = null;
  const flush = async () => {
    if (pending) await pending;
    pending = chunk.length ? opts.sink.append(chunk) : null;
    chunk = [];
  };

  const toRaw = rawParser(opts);
  const caches: AgentCaches = { ua: new Map(), keys: new Map() };
  try {
    for await (const lines of batches) {
      for (const text of lines) {
        const lineNo = ++summary.lines;
        if (text.trim() === '') continue;
        const parsed = toRaw(text);
        if (parsed.kind === 'rejected') { reject(lineNo, parsed.reason); continue; }
        if (parsed.kind === 'skipped') { summary.skipped++; continue; }
        const raw = parsed.event;
        let site = sites.get(raw.site_id);
        if (site === undefined) {
          site = await lookupSite(opts.catalog, raw.site_id);
          sites.set(raw.site_id, site);
        }
        if (site === null) { reject(lineNo, `unknown site_id "${raw.site_id}"`); continue; }
        if (raw.tenant_id !== null) {
          let owner = tenants.get(raw.tenant_id);
          if (owner === undefined) {
            owner = (await opts.catalog.getTenant(raw.tenant_id))?.siteId ?? null;
            tenants.set(raw.tenant_id, owner);
          }
          if (owner !== raw.site_id) { reject(lineNo, `tenant_id "${raw.tenant_id}" is not a tenant of site ${raw.site_id}`); continue; }
        }
        let ev;
        try {
          deriveFromAgent(raw, secret, caches);
          ev = normalizeEvent(raw, site, secret);
        } catch (err) {
          reject(lineNo, (err as Error).message);
          continue;
        }
        if (ev === null) { summary.skipped++; continue; }
        // Occurrence 1 here; the store renumbers repeats across the whole import (see Reidentify).
        (ev as EventRow).event_id = eventIdentity(ev, 1);
        chunk.push(ev as EventRow);
        if (chunk.length >= chunkSize) await flush();
      }
      opts.onProgress?.({ lines: summary.lines, rejected: summary.rejected });
    }
    await flush();
    if (pending) await pending;
  } catch (err) {
    if (pending) await (pending as Promise<void>).catch(() => undefined);
    await opts.sink.abort().catch(() => undefined);
    throw err;
  }
  const result = await opts.sink.commit();
  summary.imported = result.imported;
  summary.duplicates = result.duplicates;
  return summary;
}

/** The identity of the n-th identical copy, as identity.ts defines it (for ImportSession.reidentify). */
export const reidentify = (row: EventRow, occurrence: number): string => eventIdentity(row, occurrence);

type Parsed = { kind: 'event'; event: RawEvent } | { kind: 'rejected'; reason: string } | { kind: 'skipped' };

function rawParser(opts: ImportOptions): (text: string) => Parsed {
  const vopts = { defaultSiteId: opts.defaultSiteId, nowMs: opts.nowMs };
  const validate = (obj: unknown): Parsed => {
    const v = validateEventLine(obj, vopts);
    return v.ok ? { kind: 'event', event: v.event } : { kind: 'rejected', reason: v.reason };
  };
  if (opts.format.kind === 'events') {
    return (text) => {
      let obj: unknown;
      try {
        obj = JSON.parse(text);
      } catch (err) {
        return { kind: 'rejected', reason: `invalid JSON: ${(err as Error).message}` };
      }
      return validate(obj);
    };
  }
  const format = opts.format.format;
  const siteId = opts.defaultSiteId;
  if (!siteId) throw new Error('an access-log import needs --site');
  return (text) => {
    const entry = parseAccessLogLine(text, format);
    if ('error' in entry) return { kind: 'rejected', reason: entry.error };
    const r = accessLogToRawEvent(entry, { id: siteId });
    return r.kind === 'skipped' ? { kind: 'skipped' } : validate(r.line);
  };
}

interface AgentCaches {
  ua: Map<string, ParsedUserAgent>;
  keys: Map<string, string>;
}
const CACHE_LIMIT = 50_000;

/**
 * Does normalizeEvent's user-agent work ahead of it, memoized: parsing the agent is the
 * costliest step of an import and a log repeats a few thousand agents (and each visitor's
 * ip + agent within a day). Same functions and the same precedence (explicit fields win),
 * so the stored event is identical; normalizeEvent then finds nothing left to derive.
 */
function deriveFromAgent(raw: RawEvent, secret: string, caches: AgentCaches): void {
  const agent = raw.user_agent;
  if (agent === null) return;
  if (raw.visitor_key === null) {
    if (raw.ip === null) return; // normalizeEvent reports the missing key
    const id = `${raw.site_id}\u0000${utcDayOf(raw.ts_ms)}\u0000${raw.ip}\u0000${agent}`;
    let key = caches.keys.get(id);
    if (key === undefined) {
      if (caches.keys.size >= CACHE_LIMIT) caches.keys.clear();
      key = dailyVisitorKey(secret, raw.site_id, utcDayOf(raw.ts_ms), raw.ip, agent);
      caches.keys.set(id, key);
    }
    raw.visitor_key = key;
  }
  let ua = caches.ua.get(agent);
  if (ua === undefined) {
    if (caches.ua.size >= CACHE_LIMIT) caches.ua.clear();
    ua = parseUserAgent(agent);
    caches.ua.set(agent, ua);
  }
  raw.device_type ??= ua.device_type;
  raw.browser_family ??= ua.browser_family;
  raw.os_family ??= ua.os_family;
  raw.traffic_class ??= ua.traffic_class;
  raw.user_agent = null;
  raw.ip = null;
}

async function lookupSite(catalog: ImportOptions['catalog'], id: string): Promise<NormalizeSite | null> {
  const s = await catalog.getSite(id);
  return s ? { id: s.id, hostnames: s.hostnames, collectionProfile: s.collectionProfile, profileEffectiveAt: s.profileEffectiveAt } : null;
}
