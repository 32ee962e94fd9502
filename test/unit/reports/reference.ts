// A hand-written fixture of sessions and a plain TypeScript model of what each report should say
// about it (docs/product.md §4 and §8 read literally, no SQL, no code of src/services/reports). Each session
// is written as its events; the expected channel is written next to it, not derived.
import type { Channel } from '../../../src/domain/events.js';

export const DAY = 86_400_000;
const SIMPLE = ['ui.click', 'outbound.click', 'file.download', 'form.submit'];
const MEANINGFUL = ['goals', 'forms', 'outbound', 'downloads', 'custom'];
const CHANNEL_ORDER: Channel[] = ['Direct', 'Search', 'Referral', 'Social', 'Email', 'Paid', 'Other'];

export interface FxAction {
  name: string;
  family?: string;
  event_name?: string;
  action_id?: string;
  action_target_host?: string;
  form_id?: string;
  form_action_path?: string;
}
export interface FxEvent {
  at: string; // ISO instant
  path?: string;
  title?: string;
  eng?: number;
  action?: FxAction;
}
export interface FxSession {
  visitor: string;
  channel: Channel;
  referrer?: string;
  utm?: { source?: string; medium?: string; campaign?: string };
  country?: string;
  region?: string;
  city?: string;
  device?: string;
  browser?: string;
  os?: string;
  traffic?: 'human' | 'bot';
  events: FxEvent[];
}

/** The fixture: range 2025-06-10..12, previous period 06-07..09; events on either side of 06-11T12:00Z. */
export const SESSIONS: FxSession[] = [
  // --- previous period
  {
    visitor: 'p1',
    channel: 'Direct',
    country: 'DE',
    events: [
      { at: '2025-06-08T09:00:00Z', path: '/old', title: 'Old' },
      { at: '2025-06-08T09:01:00Z', path: '/' },
    ],
  },
  {
    visitor: 'p2',
    channel: 'Search',
    referrer: 'https://www.google.de/',
    country: 'DE',
    region: 'DE-BY',
    city: 'Munich',
    events: [
      { at: '2025-06-09T10:00:00Z', path: '/', eng: 15000 },
      { at: '2025-06-09T10:02:00Z', path: '/', action: { name: 'signup', event_name: 'signup_done' } },
    ],
  },
  {
    visitor: 'p3',
    channel: 'Direct',
    events: [
      { at: '2025-06-09T11:00:00Z', path: '/pricing' },
      { at: '2025-06-09T11:10:00Z', path: '/pricing' },
      { at: '2025-06-09T11:11:00Z', path: '/docs' },
    ],
  },
  // --- 06-10 (before the switch)
  {
    visitor: 'v1',
    channel: 'Search',
    referrer: 'https://www.google.com/search',
    country: 'DE',
    region: 'DE-BY',
    city: 'Munich',
    device: 'desktop',
    browser: 'Firefox',
    os: 'Linux',
    events: [
      { at: '2025-06-10T10:00:00Z', path: '/', title: 'Home', eng: 3000 },
      { at: '2025-06-10T10:05:00Z', path: '/pricing', title: 'Pricing', eng: 8000 },
      { at: '2025-06-10T10:06:00Z', path: '/pricing', action: { name: 'outbound.click', action_target_host: 'partner.example' } },
      { at: '2025-06-10T10:07:00Z', path: '/pricing', action: { name: 'signup', event_name: 'signup_done' } },
    ],
  },
  {
    visitor: 'v2',
    channel: 'Email',
    utm: { source: 'nl', medium: 'email', campaign: 'spring' },
    country: 'FR',
    region: 'FR-IDF',
    city: 'Paris',
    device: 'mobile',
    browser: 'Chrome',
    os: 'iOS',
    events: [
      { at: '2025-06-10T11:00:00Z', path: '/', title: 'Home', eng: 500 },
      { at: '2025-06-10T11:01:00Z', path: '/', action: { name: 'ui.click', action_id: 'menu' } },
    ],
  },
  {
    visitor: 'v3',
    channel: 'Social',
    referrer: 'https://news.ycombinator.com/item',
    country: 'DE',
    region: 'DE-BE',
    city: 'Berlin',
    device: 'desktop',
    browser: 'Chrome',
    os: 'Linux',
    events: [
      { at: '2025-06-10T12:00:00Z', path: '/blog/a', title: 'A post', eng: 12000 },
      { at: '2025-06-10T12:01:00Z', path: '/blog/a', action: { name: 'form.submit', form_id: 'f1', form_action_path: '/subscribe' } },
      { at: '2025-06-10T12:03:00Z', path: '/blog/a', action: { name: 'error.js' } },
    ],
  },
  { visitor: 'b1', channel: 'Direct', traffic: 'bot', events: [{ at: '2025-06-10T13:00:00Z', path: '/robots' }] },
  // --- 06-11 before 12:00
  {
    visitor: 'v1',
    channel: 'Direct',
    country: 'DE',
    device: 'desktop',
    browser: 'Firefox',
    os: 'Linux',
    events: [
      { at: '2025-06-11T09:00:00Z', path: '/pricing', title: 'Pricing and plans' },
      { at: '2025-06-11T09:01:00Z', path: '/pricing', action: { name: 'file.download', action_target_host: 'cdn.example' } },
    ],
  },
  {
    visitor: 'v4',
    channel: 'Referral',
    referrer: 'https://blog.example.org/post',
    country: 'US',
    region: 'US-CA',
    city: 'LA',
    device: 'desktop',
    browser: 'Safari',
    os: 'macOS',
    events: [{ at: '2025-06-11T10:00:00Z', path: '/docs', title: 'Docs' }],
  },
  // --- 06-11 after 12:00 and 06-12
  {
    visitor: 'v5',
    channel: 'Paid',
    utm: { source: 'google', medium: 'cpc', campaign: 'summer' },
    country: 'US',
    region: 'US-NY',
    city: 'NYC',
    device: 'mobile',
    browser: 'Safari',
    os: 'iOS',
    events: [
      { at: '2025-06-11T13:00:00Z', path: '/pricing', eng: 4000 },
      { at: '2025-06-11T13:02:00Z', path: '/pricing', action: { name: 'form.submit', form_id: 'buy' } },
      { at: '2025-06-11T13:03:00Z', path: '/pricing', action: { name: 'purchase', family: 'goals', event_name: 'order' } },
    ],
  },
  {
    visitor: 'v4',
    channel: 'Direct',
    country: 'US',
    region: 'US-CA',
    city: 'LA',
    device: 'desktop',
    browser: 'Safari',
    os: 'macOS',
    events: [{ at: '2025-06-11T14:00:00Z', path: '/' }],
  },
  {
    visitor: 'v4',
    channel: 'Direct',
    country: 'US',
    region: 'US-CA',
    city: 'SF',
    device: 'desktop',
    browser: 'Safari',
    os: 'macOS',
    events: [{ at: '2025-06-11T14:40:00Z', path: '/blog/a' }],
  },
  {
    visitor: 'v6',
    channel: 'Search',
    referrer: 'https://duckduckgo.com/',
    utm: { campaign: 'brand' },
    country: 'FR',
    region: 'FR-IDF',
    city: 'Paris',
    device: 'tablet',
    browser: 'Firefox',
    os: 'Android',
    events: [
      { at: '2025-06-12T08:00:00Z', path: '/', eng: 2000 },
      { at: '2025-06-12T08:10:00Z', path: '/docs', eng: 2000 },
      { at: '2025-06-12T08:11:00Z', path: '/docs', action: { name: 'outbound.click', action_target_host: 'partner.example' } },
      { at: '2025-06-12T08:12:00Z', path: '/docs', action: { name: 'error.api' } },
      { at: '2025-06-12T08:13:00Z', action: { name: 'ui.click', action_id: 'menu' } },
    ],
  },
  {
    visitor: 'v7',
    channel: 'Search',
    referrer: 'https://www.google.com/',
    country: 'DE',
    events: [{ at: '2025-06-12T20:00:00Z', path: '/' }],
  },
];

/** Import lines of the fixture for one site. */
export function linesFor(site: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const s of SESSIONS) {
    s.events.forEach((e, i) => {
      const line: Record<string, unknown> = { ts: e.at, type: e.action ? 'action' : 'pageview', site_id: site, visitor_key: s.visitor };
      if (e.path) line.path = e.path;
      if (e.title) line.title = e.title;
      if (e.eng) line.engagement_time_ms = e.eng;
      for (const k of ['country', 'region', 'city', 'device_type', 'browser_family', 'os_family'] as const) {
        const v = { country: s.country, region: s.region, city: s.city, device_type: s.device, browser_family: s.browser, os_family: s.os }[
          k
        ];
        if (v) line[k] = v;
      }
      if (s.traffic) line.traffic_class = s.traffic;
      if (i === 0) {
        if (s.referrer) line.referrer = s.referrer;
        if (s.utm?.source) line.utm_source = s.utm.source;
        if (s.utm?.medium) line.utm_medium = s.utm.medium;
        if (s.utm?.campaign) line.utm_campaign = s.utm.campaign;
      }
      if (e.action) {
        const { name, ...rest } = e.action;
        line.action_name = name;
        Object.assign(line, rest);
      }
      out.push(line);
    });
  }
  return out;
}

// ---------------------------------------------------------------- the stored model

export interface SiteMode {
  profile: 'strict' | 'extended';
  effectiveAtMs: number | null;
}

export interface REvent {
  ts: number;
  type: 'pageview' | 'action';
  path: string | null;
  title: string | null;
  eng: number;
  visitor: string;
  family: string | null;
  action: FxAction | null;
  session: RSession;
}
export interface RSession {
  fx: FxSession;
  start: number;
  events: REvent[];
  channel: Channel;
  referrer: string | null;
  country: string | null;
  region: string | null;
  city: string | null;
  utmAny: boolean;
  utm: { source: string | null; medium: string | null; campaign: string | null };
  pageviews: number;
  eng: number;
  bounce: boolean;
  engaged: boolean;
  entry: string | null;
  exit: string | null;
}

export function profileAt(mode: SiteMode, ts: number): 'strict' | 'extended' {
  if (mode.effectiveAtMs === null || ts >= mode.effectiveAtMs) return mode.profile;
  return mode.profile === 'strict' ? 'extended' : 'strict';
}

export function familyOf(a: FxAction): string {
  if (a.family) return a.family;
  if (a.name === 'form.submit') return 'forms';
  if (a.name === 'outbound.click') return 'outbound';
  if (a.name === 'file.download') return 'downloads';
  if (a.name === 'ui.click') return 'instrumentation';
  if (a.name.startsWith('error.')) return 'errors';
  return 'custom';
}

function hostOf(url: string): string {
  return new URL(url).hostname.replace(/^www\./, '');
}

/** Human sessions as a site in `mode` stores them. */
export function stored(mode: SiteMode): RSession[] {
  const out: RSession[] = [];
  for (const fx of SESSIONS) {
    if (fx.traffic === 'bot') continue;
    const first = Date.parse(fx.events[0].at);
    const strict = profileAt(mode, first) === 'strict';
    const s: RSession = {
      fx,
      start: first,
      events: [],
      channel: fx.channel,
      referrer: fx.referrer ? hostOf(fx.referrer) : null,
      country: fx.country ?? null,
      region: strict ? null : (fx.region ?? null),
      city: strict ? null : (fx.city ?? null),
      utm: strict
        ? { source: null, medium: null, campaign: null }
        : { source: fx.utm?.source ?? null, medium: fx.utm?.medium ?? null, campaign: fx.utm?.campaign ?? null },
      utmAny: false,
      pageviews: 0,
      eng: 0,
      bounce: false,
      engaged: false,
      entry: null,
      exit: null,
    };
    s.utmAny = s.utm.source !== null || s.utm.medium !== null || s.utm.campaign !== null;
    let meaningful = 0;
    for (const e of fx.events) {
      const ts = Date.parse(e.at);
      if (e.action && profileAt(mode, ts) === 'strict' && !SIMPLE.includes(e.action.name)) continue;
      const ev: REvent = {
        ts,
        type: e.action ? 'action' : 'pageview',
        path: e.path ?? null,
        title: e.title ?? null,
        eng: e.eng ?? 0,
        visitor: fx.visitor,
        family: e.action ? familyOf(e.action) : null,
        action: e.action ?? null,
        session: s,
      };
      s.events.push(ev);
      s.eng += ev.eng;
      if (ev.type === 'pageview') {
        s.pageviews++;
        s.entry ??= ev.path;
        s.exit = ev.path;
      } else if (MEANINGFUL.includes(ev.family!)) meaningful++;
    }
    s.bounce = s.pageviews === 1 && meaningful === 0;
    s.engaged = s.pageviews >= 2 || s.eng >= 10_000 || meaningful > 0;
    out.push(s);
  }
  return out;
}

export const events = (sessions: RSession[]) => sessions.flatMap((s) => s.events);
export const within = (ts: number, w: { startMs: number; endMs: number } | null) => w !== null && ts >= w.startMs && ts <= w.endMs;

export function dayWindow(from: string, to: string) {
  const startMs = Date.parse(`${from}T00:00:00Z`);
  const endMs = Date.parse(`${to}T00:00:00Z`) + DAY - 1;
  const days: string[] = [];
  for (let t = startMs; t <= endMs; t += DAY) days.push(new Date(t).toISOString().slice(0, 10));
  return { startMs, endMs, days };
}

export const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b);

/** Code-point order with null last, as the spec's row rule says. */
export function cp(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

/** count by key, rows sorted by count desc then key, zero rows never appear. */
export function countBy<T>(
  items: T[],
  key: (x: T) => string | null,
  weight: (x: T) => number = () => 1,
): { key: string | null; n: number }[] {
  const m = new Map<string | null, number>();
  for (const it of items) m.set(key(it), (m.get(key(it)) ?? 0) + weight(it));
  return [...m]
    .map(([k, n]) => ({ key: k, n }))
    .filter((r) => r.n > 0)
    .sort((a, b) => b.n - a.n || cp(a.key, b.key));
}

export function distinctCountBy<T>(items: T[], key: (x: T) => string | null, member: (x: T) => unknown) {
  const m = new Map<string | null, Set<unknown>>();
  for (const it of items) {
    const k = key(it);
    if (!m.has(k)) m.set(k, new Set());
    m.get(k)!.add(member(it));
  }
  return [...m].map(([k, set]) => ({ key: k, n: set.size })).sort((a, b) => b.n - a.n || cp(a.key, b.key));
}

/** Sum over days of distinct visitors with an event that day. */
export function visitors(evs: REvent[]): number {
  const perDay = new Map<string, Set<string>>();
  for (const e of evs) {
    const d = new Date(e.ts).toISOString().slice(0, 10);
    if (!perDay.has(d)) perDay.set(d, new Set());
    perDay.get(d)!.add(e.visitor);
  }
  return [...perDay.values()].reduce((n, s) => n + s.size, 0);
}

/** Latest title of each path among titled pageviews. */
export function latestTitles(evs: REvent[]): Map<string, string> {
  const best = new Map<string, { ts: number; title: string }>();
  for (const e of evs) {
    if (e.type !== 'pageview' || e.title === null || e.path === null) continue;
    const cur = best.get(e.path);
    if (!cur || e.ts > cur.ts) best.set(e.path, { ts: e.ts, title: e.title });
  }
  return new Map([...best].map(([k, v]) => [k, v.title]));
}

export { CHANNEL_ORDER };

/** The counting window of an extended slice (docs/product.md §4.8): null when locked or before the switch. */
export function sectionWindow(mode: SiteMode, w: { startMs: number; endMs: number }): { startMs: number; endMs: number } | null {
  if (mode.profile === 'strict') return null;
  if (mode.effectiveAtMs === null) return { startMs: w.startMs, endMs: w.endMs };
  if (w.endMs < mode.effectiveAtMs) return null;
  return { startMs: Math.max(w.startMs, mode.effectiveAtMs), endMs: w.endMs };
}

export const MODES: Record<'strict' | 'extended' | 'switched', SiteMode> = {
  strict: { profile: 'strict', effectiveAtMs: null },
  extended: { profile: 'extended', effectiveAtMs: null },
  switched: { profile: 'extended', effectiveAtMs: Date.parse('2025-06-11T12:00:00Z') },
};
export const EFFECTIVE_AT = '2025-06-11T12:00:00.000Z';
