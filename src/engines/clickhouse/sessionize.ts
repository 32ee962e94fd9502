// Sessionization in TypeScript, for stores without window functions (ClickHouse 18.16). The SAME
// rules as engines/duckdb/sessions-sql.ts, checked against it on equal input
// (test/engines/clickhouse-sessionize.test.ts): sessions keyed by (site, day, tenant, visitor key);
// events ordered by ts, pageview before action, then event_id (byte order); a gap of more than
// 30 minutes starts a new session; the id is md5 of site, tenant (NUL for none), key and start.
import { createHash } from 'node:crypto';
import { ENGAGED_MS, MEANINGFUL_FAMILIES, SESSION_GAP_MS, type StoredSession } from '../../domain/events.js';
import type { EventRow } from '../../ports/event-store.js';

export const DAY_MS = 86_400_000;

/** YYYY-MM-DD (UTC) of a ms timestamp. */
export function utcDay(tsMs: number): string {
  return new Date(Math.floor(tsMs / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
}

export type SessionizedEvent = EventRow & { day: string; session_id: string };

/** Byte order of the UTF-8 encodings (what SQL engines compare), without encoding ASCII. */
function compareBytes(a: string, b: string): number {
  if (a === b) return 0;
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(a) && /^[\x00-\x7f]*$/.test(b)) return a < b ? -1 : 1;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** The event order inside a session. */
export function compareEvents(a: EventRow, b: EventRow): number {
  if (a.ts_ms !== b.ts_ms) return a.ts_ms - b.ts_ms;
  const pa = a.type === 'pageview' ? 0 : 1;
  const pb = b.type === 'pageview' ? 0 : 1;
  return pa - pb || compareBytes(a.event_id, b.event_id);
}

export function sessionId(site: string, tenant: string | null, visitorKey: string, startMs: number): string {
  return createHash('md5').update([site, tenant ?? '\0', visitorKey, String(startMs)].join('\x1f')).digest('hex');
}

const MEANINGFUL = new Set<string>(MEANINGFUL_FAMILIES);

/**
 * Every event of some whole (site, day)s in, every event with its session id and every session of
 * those days out. Input order does not matter; events must not repeat.
 */
export function sessionize(rows: readonly EventRow[]): { events: SessionizedEvent[]; sessions: StoredSession[] } {
  const groups = new Map<string, EventRow[]>();
  for (const r of rows) {
    const k = JSON.stringify([r.site_id, utcDay(r.ts_ms), r.tenant_id, r.visitor_key]);
    let g = groups.get(k);
    if (!g) groups.set(k, (g = []));
    g.push(r);
  }
  const events: SessionizedEvent[] = [];
  const sessions: StoredSession[] = [];
  for (const list of groups.values()) {
    list.sort(compareEvents);
    let start = 0;
    for (let i = 1; i <= list.length; i++) {
      if (i === list.length || list[i].ts_ms - list[i - 1].ts_ms > SESSION_GAP_MS) {
        const s = toSession(list.slice(start, i));
        sessions.push(s);
        for (let j = start; j < i; j++) events.push({ ...list[j], day: s.day, session_id: s.session_id });
        start = i;
      }
    }
  }
  return { events, sessions };
}

function toSession(evs: EventRow[]): StoredSession {
  const first = evs[0];
  let pageviews = 0;
  let meaningful = 0;
  let engagement = 0;
  let entry: string | null = null;
  let exit: string | null = null;
  for (const e of evs) {
    if (e.type === 'pageview') {
      if (pageviews === 0) entry = e.path_canon;
      exit = e.path_canon;
      pageviews++;
    } else if (e.type === 'action' && e.family !== null && MEANINGFUL.has(e.family)) meaningful++;
    engagement += e.engagement_time_ms ?? 0;
  }
  return {
    session_id: sessionId(first.site_id, first.tenant_id, first.visitor_key, first.ts_ms),
    site_id: first.site_id,
    tenant_id: first.tenant_id,
    visitor_key: first.visitor_key,
    day: utcDay(first.ts_ms),
    start_ms: first.ts_ms,
    end_ms: evs[evs.length - 1].ts_ms,
    profile: first.profile,
    traffic_class: first.traffic_class,
    channel: first.channel,
    referrer_host: first.referrer_host,
    utm_source: first.utm_source,
    utm_medium: first.utm_medium,
    utm_campaign: first.utm_campaign,
    country: first.country,
    region: first.region,
    city: first.city,
    device_type: first.device_type,
    browser_family: first.browser_family,
    os_family: first.os_family,
    entry_page: entry,
    exit_page: exit,
    pageviews,
    events: evs.length,
    engagement_ms: engagement,
    meaningful_actions: meaningful,
    is_bounce: pageviews === 1 && meaningful === 0,
    is_engaged: pageviews >= 2 || engagement >= ENGAGED_MS || meaningful > 0,
  };
}
