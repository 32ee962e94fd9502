// An independent, deliberately naive computation of the query API's read (AnalyticsEngine.queryRows,
// the rules of compile-query-api.ts's header and docs/decisions/query-api.md) over in-memory events and
// sessions. It shares no code with the SQL compiler, the engines or the domain's zone arithmetic: local
// time is read from Intl's clock, event by event, and the property test compares the two on random data.
// Rules as read here (the test's report says where a reading was a choice):
// - kept events: site, traffic class, tenant (null = every one, events without one included; a list =
//   those only), startMs <= ts < endMs, every event filter, every visit filter through the event's
//   session (the tenant is the event's own), has_done through the event's session;
// - has_done: the session holds an event of its own (any traffic class) in the window's UTC days that
//   matches the inner filter; has_not_done: it holds none;
// - "the query names event:page": a group by page, or an event:page clause outside has_done;
// - events / pageviews: kept events; visitors: per (groups, bucket, UTC day) distinct visitor keys of the
//   kept events (pageviews only when the query names the page), summed over the days;
// - visits (bounces, visit_pageviews, visit_eng_ms): sessions starting in the window that are in scope
//   and pass the visit filters; with event filters, event groups or the page named, only those holding a
//   kept event (any of the session's, however far past endMs: a visit counts whole; pageviews only when
//   the page is named), counted once per distinct tuple of event-group values held, in the bucket of the
//   session's start;
// - null never matches a positive clause (is, contains, matches); the negated ones and `not` include it;
//   "(none)" in is / is_not means null; case-insensitive lowers both sides; matches is a partial match;
// - a row exists where some requested part found something: events/pageviews where kept events are,
//   visitors where counted events are, visit atoms where counted visits are (its other atoms then 0); a
//   total (no groups, no time) is always one row.
import type { StoredSession } from '../../src/domain/events.js';
import type { QueryFilter } from '../../src/domain/query-api/query-body.js';
import type { QueryAtom } from '../../src/domain/query-api/query-metrics.js';
import type { QueryRow, QueryRowsRequest } from '../../src/ports/analytics-engine.js';
import type { TestEvent } from './analytics-fixtures.js';

const HOUR = 3_600_000;
const DAY = 86_400_000;

export type RefUnit = 'hour' | 'day' | 'week' | 'month';

/** What the reference buckets by (the request's own bucketing is the engine's, and not read here). */
export interface RefTime {
  zone: string;
  unit: RefUnit;
}

/** visit:* dimensions and what each reads of the session (source: the campaign's source, else the referrer's host). */
const VISIT_VALUE: Record<string, (s: StoredSession) => string | null> = {
  'visit:entry_page': (s) => s.entry_page,
  'visit:exit_page': (s) => s.exit_page,
  'visit:source': (s) => s.utm_source ?? s.referrer_host,
  'visit:referrer': (s) => s.referrer_host,
  'visit:channel': (s) => s.channel,
  'visit:utm_source': (s) => s.utm_source,
  'visit:utm_medium': (s) => s.utm_medium,
  'visit:utm_campaign': (s) => s.utm_campaign,
  'visit:device': (s) => s.device_type,
  'visit:browser': (s) => s.browser_family,
  'visit:os': (s) => s.os_family,
  'visit:country': (s) => s.country,
  'visit:country_name': (s) => s.country,
  'visit:region': (s) => s.region,
  'visit:region_name': (s) => s.region,
  'visit:city': (s) => s.city,
  'visit:city_name': (s) => s.city,
  'visit:tenant': (s) => s.tenant_id,
};

/** A visit group's column (QueryGroup) read off a session. */
function visitColumn(s: StoredSession, column: string): string | null {
  if (column === 'source') return s.utm_source ?? s.referrer_host;
  const v = (s as unknown as Record<string, unknown>)[column];
  if (v === undefined) throw new Error(`the reference knows no session column ${column}`);
  return v as string | null;
}

const eventName = (e: TestEvent): string | null => (e.type === 'pageview' ? 'pageview' : (e.event_name ?? e.action_name));

/** event:action: the name, then ' · ' and the first detail of target host, form id, element id. */
function actionLabel(e: TestEvent): string | null {
  if (e.type === 'pageview') return null;
  const name = e.event_name ?? e.action_name ?? '';
  const detail = e.action_target_host ?? e.form_id ?? e.action_id;
  return detail === null ? name : `${name} · ${detail}`;
}

function eventValue(dimension: string, e: TestEvent): string | null {
  if (dimension === 'event:page') return e.path_canon;
  if (dimension === 'event:name') return eventName(e);
  if (dimension === 'event:action') return actionLabel(e);
  throw new Error(`the reference does not read ${dimension}`);
}

// ---- the local clock, by Intl

const clocks = new Map<string, Intl.DateTimeFormat>();

/** The local wall clock at `ms` as milliseconds of a UTC calendar (what the clock shows, as if it were UTC). */
export function wallClockMs(zone: string, ms: number): number {
  let f = clocks.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    clocks.set(zone, f);
  }
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(new Date(ms))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) + (((ms % 1000) + 1000) % 1000);
}

/** The bucket key of an instant as QueryBucketing keys them, from the local clock. */
export function bucketKey(t: RefTime, windowStartMs: number, ms: number): number {
  const local = wallClockMs(t.zone, ms);
  if (t.unit === 'hour') return Math.floor(local / HOUR);
  const day = Math.floor(local / DAY);
  if (t.unit === 'day') return day;
  if (t.unit === 'week') return day - ((new Date(day * DAY).getUTCDay() + 6) % 7);
  const month = (x: number) => new Date(x).getUTCFullYear() * 12 + new Date(x).getUTCMonth();
  return month(local) - month(wallClockMs(t.zone, windowStartMs));
}

// ---- filters

/** One clause: "(none)" with is / is_not is the null value; else null never matches. */
function clauseMatches(op: string, value: string | null, clause: string, caseSensitive: boolean): boolean {
  const base = op.replace(/_not$/, '');
  if (base === 'is' && clause === '(none)') return value === null;
  if (value === null) return false;
  if (base === 'matches') {
    // RE2's inline (?i) prefix as JS's flag (Node 20's RegExp has no inline modifiers)
    const caseless = clause.startsWith('(?i)');
    return new RegExp(caseless ? clause.slice(4) : clause, caseless ? 'iu' : 'u').test(value);
  }
  const v = caseSensitive ? value : value.toLowerCase();
  const c = caseSensitive ? clause : clause.toLowerCase();
  return base === 'is' ? v === c : v.includes(c);
}

interface Subject {
  /** the event a clause on an event dimension reads (null: none, e.g. a visit) */
  event: TestEvent | null;
  session: StoredSession | undefined;
  tenant: string | null;
}

export class ReferenceQueryApi {
  private readonly sessionById: Map<string, StoredSession>;
  private readonly eventsOf = new Map<string, TestEvent[]>();

  constructor(
    private readonly events: readonly TestEvent[],
    private readonly sessions: readonly StoredSession[],
  ) {
    this.sessionById = new Map(sessions.map((s) => [s.session_id, s]));
    for (const e of events) {
      const list = this.eventsOf.get(e.session_id) ?? [];
      list.push(e);
      this.eventsOf.set(e.session_id, list);
    }
  }

  rows(req: QueryRowsRequest, time: RefTime | null): QueryRow[] {
    if ((req.bucketing === null) !== (time === null)) throw new Error('a bucketed request needs the reference time, and only it');
    const { scope, window } = req;
    const firstDay = Math.floor(window.startMs / DAY) * DAY;
    const lastDayEnd = Math.ceil(window.endMs / DAY) * DAY;

    const matches = (f: QueryFilter, x: Subject): boolean => {
      if ('dimension' in f) {
        let value: string | null;
        if (f.dimension.startsWith('event:')) {
          if (!x.event) throw new Error(`${f.dimension} read without an event`);
          value = eventValue(f.dimension, x.event);
        } else if (f.dimension === 'visit:tenant') value = x.tenant;
        else value = x.session ? VISIT_VALUE[f.dimension](x.session) : null;
        const any = f.clauses.some((c) => clauseMatches(f.op, value, c, f.caseSensitive));
        return f.op.endsWith('_not') ? !any : any;
      }
      if ('filters' in f) return f.op === 'and' ? f.filters.every((g) => matches(g, x)) : f.filters.some((g) => matches(g, x));
      if (f.op === 'not') return !matches(f.filter, x);
      const held = (x.session ? (this.eventsOf.get(x.session.session_id) ?? []) : []).some(
        (e) =>
          e.site_id === scope.siteId &&
          e.ts_ms >= firstDay &&
          e.ts_ms < lastDayEnd &&
          matches(f.filter, { event: e, session: x.session, tenant: e.tenant_id }),
      );
      return f.op === 'has_done' ? held : !held;
    };

    // the top level's conditions, and-ed: those on events, and those on visits
    const eventFilters: QueryFilter[] = [];
    const visitFilters: QueryFilter[] = [];
    const kinds = (f: QueryFilter, out: Set<string>): Set<string> => {
      if ('dimension' in f) out.add(f.dimension.startsWith('event:') ? 'event' : 'visit');
      else if ('filters' in f) for (const g of f.filters) kinds(g, out);
      else if (f.op === 'not') kinds(f.filter, out);
      else out.add('visit');
      return out;
    };
    const split = (f: QueryFilter) => {
      if (f.op === 'and') f.filters.forEach(split);
      else {
        const k = kinds(f, new Set());
        if (k.size !== 1) throw new Error(`a mixed ${f.op} is no valid query: ${JSON.stringify(f)}`);
        (k.has('event') ? eventFilters : visitFilters).push(f);
      }
    };
    req.filters.forEach(split);

    const names = (f: QueryFilter): boolean =>
      'dimension' in f ? f.dimension === 'event:page' : 'filters' in f ? f.filters.some(names) : f.op === 'not' && names(f.filter);
    // grouped by event:action, a pageview is in no group, and a page named does not narrow the actions to pageviews
    const actionGrouped = req.groups.some((g) => g.kind === 'action');
    const pageNamed = !actionGrouped && (req.groups.some((g) => g.kind === 'page') || req.filters.some(names));

    const tenantIn = (t: string | null) => scope.tenantIds === null || (t !== null && scope.tenantIds.includes(t));
    const inScope = (site: string, traffic: string, tenant: string | null) =>
      site === scope.siteId && (scope.trafficClasses as readonly string[]).includes(traffic) && tenantIn(tenant);
    const subjectOf = (e: TestEvent): Subject => ({ event: e, session: this.sessionById.get(e.session_id), tenant: e.tenant_id });
    /** an event's scope and every filter, its time aside */
    const keptAnyTime = (e: TestEvent, pageviewsOnly: boolean) => {
      if (!inScope(e.site_id, e.traffic_class, e.tenant_id)) return false;
      if (pageviewsOnly && e.type !== 'pageview') return false;
      if (actionGrouped && e.type === 'pageview') return false;
      const x = subjectOf(e);
      return eventFilters.every((f) => matches(f, x)) && visitFilters.every((f) => matches(f, x));
    };
    const inWindow = (ms: number) => ms >= window.startMs && ms < window.endMs;

    for (const g of req.groups) if (g.kind === 'goal' || g.kind === 'prop') throw new Error(`the reference does not group by ${g.kind}`);
    /** group i's value: of the event (its session's for a visit group), or of the session alone */
    const groupValue = (i: number, e: TestEvent | null, s: StoredSession | undefined): string | null => {
      const g = req.groups[i];
      if (g.kind === 'visit') {
        if (g.column === 'tenant_id') return e ? e.tenant_id : s!.tenant_id;
        return s ? visitColumn(s, g.column) : null;
      }
      if (!e) throw new Error('an event group read without an event');
      return g.kind === 'page' ? e.path_canon : g.kind === 'action' ? actionLabel(e) : eventName(e);
    };
    const bucketOf = (ms: number) => (time ? bucketKey(time, window.startMs, ms) : null);

    const out = new Map<string, QueryRow>();
    const row = (keys: (string | null)[], bucket: number | null): QueryRow => {
      const id = JSON.stringify([keys, bucket]);
      let r = out.get(id);
      if (!r) {
        r = { keys, bucket, atoms: Object.fromEntries(req.atoms.map((a) => [a, 0])) };
        out.set(id, r);
      }
      return r;
    };
    const wants = (a: QueryAtom) => req.atoms.includes(a);
    const add = (r: QueryRow, a: QueryAtom, n: number) => {
      if (wants(a)) r.atoms[a] = (r.atoms[a] ?? 0) + n;
    };
    const eventKeys = (e: TestEvent) => req.groups.map((_, i) => groupValue(i, e, this.sessionById.get(e.session_id)));

    // events, pageviews
    if (wants('events') || wants('pageviews'))
      for (const e of this.events) {
        if (!inWindow(e.ts_ms) || !keptAnyTime(e, false)) continue;
        const r = row(eventKeys(e), bucketOf(e.ts_ms));
        add(r, 'events', 1);
        add(r, 'pageviews', e.type === 'pageview' ? 1 : 0);
      }

    // visitors: distinct keys per UTC day, summed
    if (wants('visitors')) {
      const perDay = new Map<string, { keys: (string | null)[]; bucket: number | null; visitors: Set<string> }>();
      for (const e of this.events) {
        if (!inWindow(e.ts_ms) || !keptAnyTime(e, pageNamed)) continue;
        const keys = eventKeys(e);
        const bucket = bucketOf(e.ts_ms);
        const id = JSON.stringify([keys, bucket, Math.floor(e.ts_ms / DAY)]);
        const g = perDay.get(id) ?? { keys, bucket, visitors: new Set<string>() };
        g.visitors.add(e.visitor_key);
        perDay.set(id, g);
      }
      for (const g of perDay.values()) add(row(g.keys, g.bucket), 'visitors', g.visitors.size);
    }

    // visits
    if ((['visits', 'bounces', 'visit_pageviews', 'visit_eng_ms'] as const).some(wants)) {
      const eventGroups = req.groups.some((g) => g.kind !== 'visit');
      const heldBy = eventFilters.length > 0 || eventGroups || pageNamed;
      for (const s of this.sessions) {
        if (!inWindow(s.start_ms) || !inScope(s.site_id, s.traffic_class, s.tenant_id)) continue;
        const x: Subject = { event: null, session: s, tenant: s.tenant_id };
        if (!visitFilters.every((f) => matches(f, x))) continue;
        let tuples: (string | null)[][];
        if (!heldBy) tuples = [req.groups.map((_, i) => groupValue(i, null, s))];
        else {
          const held = new Map<string, (string | null)[]>();
          for (const e of this.eventsOf.get(s.session_id) ?? []) {
            if (!keptAnyTime(e, pageNamed)) continue;
            const keys = req.groups.map((g, i) => (g.kind === 'visit' ? groupValue(i, null, s) : groupValue(i, e, s)));
            held.set(JSON.stringify(keys), keys);
          }
          tuples = [...held.values()];
        }
        for (const keys of tuples) {
          const r = row(keys, bucketOf(s.start_ms));
          add(r, 'visits', 1);
          add(r, 'bounces', s.is_bounce ? 1 : 0);
          add(r, 'visit_pageviews', s.pageviews);
          add(r, 'visit_eng_ms', s.engagement_ms);
        }
      }
    }
    // a total (no groups, no time) is one row, zeros where nothing counted
    if (req.groups.length === 0 && time === null) return [row([], null)];
    return [...out.values()];
  }
}
