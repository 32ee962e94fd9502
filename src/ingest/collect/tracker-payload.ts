// The body of POST /api/event (docs/product.md §9): Plausible's Events API (`name`, `url`, `domain`,
// `referrer`, `props`, `revenue`) or its tracker's short keys (`n`, `u`, `d`, `r`, `p`, `$`, `h`,
// `i`, `e`, `sd`, `v`), read into one shape, then mapped onto an import line (docs/product.md §3) so that it
// goes through the importer's own validation and enrichment. Pure.
import { MAX_ENGAGEMENT_MS } from '../../domain/events.js';
import { unstorableReason } from '../../domain/storable-text.js';
import { BoundedMemo } from '../parse/memo.js';
import { readPropsObject, setProp } from '../parse/props.js';
import { rawPathOf } from '../parse/url.js';

export { MAX_PROPS, MAX_PROP_KEY, MAX_PROP_VALUE } from '../parse/props.js';
export const MAX_NAME = 120;
export const MAX_URL = 2048;
export const MAX_DOMAIN = 253;

export interface TrackerEvent {
  name: string;
  /** absolute http(s) URL of the page */
  url: string;
  /** the site's domain as the page configured it */
  domain: string;
  referrer: string | null;
  /** scalar props as strings; nulls dropped */
  props: Record<string, string>;
  /** `h`: hash-based routing, the fragment is part of the page */
  hashRouting: boolean;
  /** `i: false`: an event that should not count as an interaction */
  interactive: boolean;
  /** `e` of an engagement event, ms; null for every other event */
  engagementMs: number | null;
}

export type TrackerParse = { ok: true; event: TrackerEvent } | { ok: false; status: 400 | 422; message: string; field?: string };

class Invalid extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

function invalid(field: string, message: string): never {
  throw new Invalid(field, message);
}

/** The value under the tracker's short key, else the Events API's long one. */
function pick(o: Record<string, unknown>, short: string, long: string): unknown {
  return o[short] !== undefined ? o[short] : o[long];
}

function requiredString(v: unknown, field: string, max: number): string {
  if (v === undefined || v === null || v === '') invalid(field, `${field} is required`);
  if (typeof v !== 'string') invalid(field, `${field} must be a string`);
  if (v.trim() === '') invalid(field, `${field} is required`);
  if (v.length > max) invalid(field, `${field} is longer than ${max} characters`);
  return v;
}

/** Whether a URL is absolute http(s), memoized: a site's pages repeat, and parsing one costs more than the rest of the body. */
const absoluteHttp = new BoundedMemo((url: string): boolean => {
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
});

function readUrl(v: unknown): string {
  const url = requiredString(v, 'url', MAX_URL);
  if (!absoluteHttp.get(url)) invalid('url', 'url must be an absolute http(s) URL');
  return url;
}

function readProps(v: unknown): Record<string, string> {
  if (v === undefined || v === null) return {};
  // The tracker sends an object; server-side senders sometimes send it as a JSON string.
  let obj = v;
  if (typeof v === 'string') {
    try {
      obj = JSON.parse(v);
    } catch {
      invalid('props', 'props must be an object (or a JSON string of one)');
    }
  }
  const read = readPropsObject(obj);
  if (!read.ok) invalid('props', read.reason);
  return read.props;
}

function readEngagement(v: unknown): number {
  if (v === undefined || v === null) invalid('e', 'e (engaged time in ms) is required for an engagement event');
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) invalid('e', 'e must be a non-negative number of milliseconds');
  if (v > MAX_ENGAGEMENT_MS) invalid('e', `e is over ${MAX_ENGAGEMENT_MS} (one day)`);
  return Math.round(v);
}

/** Reads a request body; 400 when it is not a JSON object, 422 naming the first bad field. */
export function parseTrackerBody(body: string): TrackerParse {
  let o: unknown;
  try {
    o = JSON.parse(body);
  } catch {
    return { ok: false, status: 400, message: 'The body must be a JSON object (the event).' };
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o))
    return { ok: false, status: 400, message: 'The body must be a JSON object (the event).' };
  try {
    return { ok: true, event: readEvent(o as Record<string, unknown>) };
  } catch (err) {
    if (err instanceof Invalid) return { ok: false, status: 422, message: `Invalid event: ${err.message}.`, field: err.field };
    throw err;
  }
}

function readEvent(o: Record<string, unknown>): TrackerEvent {
  const name = requiredString(pick(o, 'n', 'name'), 'name', MAX_NAME);
  const url = readUrl(pick(o, 'u', 'url'));
  const domain = requiredString(pick(o, 'd', 'domain'), 'domain', MAX_DOMAIN).trim();
  // The domain is looked up, never stored: refused like the stored fields are (validate.ts), before any lookup.
  const unstorable = unstorableReason(domain);
  if (unstorable !== null) invalid('domain', `domain ${unstorable}`);
  const r = pick(o, 'r', 'referrer');
  if (r !== undefined && r !== null && typeof r !== 'string') invalid('referrer', 'referrer must be a string or null');
  const h = pick(o, 'h', 'hashMode');
  const i = pick(o, 'i', 'interactive');
  return {
    name,
    url,
    domain,
    referrer: typeof r === 'string' && r.trim() !== '' ? r : null,
    props: readProps(pick(o, 'p', 'props')),
    hashRouting: h === 1 || h === true || h === '1',
    interactive: i !== false,
    engagementMs: name === 'engagement' ? readEngagement(pick(o, 'e', 'engagement_time')) : null,
  };
}

/** The tracker's built-in names and the actions they are (docs/product.md §9). */
const BUILT_IN_ACTIONS: Record<string, string> = {
  'Outbound Link: Click': 'outbound.click',
  'File Download': 'file.download',
  'Form: Submission': 'form.submit',
  '404': 'error.404',
};

/** String props that fill the action's fields of the same name. */
const ACTION_PROPS = ['action_id', 'form_id', 'form_action_path', 'family'] as const;

/**
 * Props the product reads into columns of its own (the title, the tenant, the action's fields): never
 * custom properties as well, on any kind of event, so a key means one thing (docs/decisions/custom-properties.md).
 * `url` is not among them: of an outbound click only its host is kept, and a download's is kept nowhere else.
 */
const MAPPED_PROPS: ReadonlySet<string> = new Set(['title', 'tenant_id', ...ACTION_PROPS]);

/** The tracker's props that are the event's custom properties: all but MAPPED_PROPS; null when none. */
function customProps(props: Record<string, string>): Record<string, string> | null {
  let out: Record<string, string> | null = null;
  for (const key of Object.keys(props)) if (!MAPPED_PROPS.has(key)) setProp((out ??= {}), key, props[key]);
  return out;
}

export interface LineContext {
  siteId: string;
  /** an ACTIVE tenant of the site named by props.tenant_id, else null */
  tenantId: string | null;
  tsMs: number;
  ip: string;
  userAgent: string;
}

/**
 * The page as an import line names it. With hash routing the fragment is part of the page: it is
 * passed percent-encoded behind the path, so the path rules (which end a page at `#`) keep it.
 */
/**
 * The import line (docs/product.md §3) a tracker event is. Engagement is read as a pageview of its page: the
 * line is only used to derive the visitor key and the page it belongs to (see collector.ts). Each kind is
 * one object literal: every request makes one, and spreading a base into it cost more than the rest.
 */
export function toImportLine(ev: TrackerEvent, ctx: LineContext): Record<string, unknown> {
  const ts = new Date(ctx.tsMs).toISOString();
  let line: Record<string, unknown>;
  let builtIn: string | undefined;
  if (ev.name === 'pageview' || ev.name === 'engagement') {
    const title = ev.name === 'pageview' ? (ev.props.title ?? null) : null;
    line = {
      ts,
      site_id: ctx.siteId,
      tenant_id: ctx.tenantId,
      url: ev.url,
      referrer: ev.referrer,
      ip: ctx.ip,
      user_agent: ctx.userAgent,
      type: 'pageview',
      title,
    };
  } else {
    builtIn = BUILT_IN_ACTIONS[ev.name];
    line = {
      ts,
      site_id: ctx.siteId,
      tenant_id: ctx.tenantId,
      url: ev.url,
      referrer: ev.referrer,
      ip: ctx.ip,
      user_agent: ctx.userAgent,
      type: 'action',
      action_name: builtIn ?? ev.name,
      event_name: builtIn ? null : ev.name,
    };
    for (const key of ACTION_PROPS) if (ev.props[key] !== undefined) line[key] = ev.props[key];
    if (builtIn === 'outbound.click' && ev.props.url !== undefined) line.action_target_host = hostOf(ev.props.url);
    // A custom event marked non-interactive is instrumentation: it makes no session engaged.
    if (!builtIn && !ev.interactive && line.family === undefined) line.family = 'instrumentation';
  }
  // an engagement is no event: what it carries is not stored
  const custom = ev.name === 'engagement' ? null : customProps(ev.props);
  if (custom !== null) line.props = custom;
  const at = ev.hashRouting ? ev.url.indexOf('#') : -1;
  if (at !== -1) {
    // `#/search?q=x` is the page `#/search`: the fragment's own query is not part of the page.
    const fragment = ev.url.slice(at + 1).split('?')[0];
    line.url = ev.url.slice(0, at);
    line.path = `${rawPathOf(ev.url)}%23${fragment.replace(/#/g, '%23')}`;
  }
  return line;
}

function hostOf(url: string): string | null {
  try {
    const host = new URL(url).hostname.toLowerCase();
    return host === '' ? null : host;
  } catch {
    return null;
  }
}
