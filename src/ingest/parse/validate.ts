// Validation of one parsed NDJSON object (docs/product.md §3). Pure: the caller passes `nowMs`.
// Unknown fields are ignored so collectors can send more than we store; `null` and empty strings mean
// "not sent" for optional fields.
import { DEVICE_TYPES, TRAFFIC_CLASSES, type DeviceType, type TrafficClass } from '../../domain/events.js';
import { isActionFamily } from './families.js';
import { FIELD_LIMITS, MAX_ENGAGEMENT_MS, MAX_FUTURE_MS, type RawEvent } from './raw-event.js';
import { propArrays, readPropsObject, type PropArrays } from './props.js';
import { parseIsoInstant } from './timestamp.js';
import { pathCanon } from './url.js';

export type ValidationResult = { ok: true; event: RawEvent } | { ok: false; reason: string };

export interface ValidateOptions {
  /** `--site`: used when a line has no site_id; a line naming another site is rejected */
  defaultSiteId?: string;
  nowMs: number;
}

type StringField = keyof typeof FIELD_LIMITS;

// In u-mode a surrogate pair is one code point, so this finds only lone (invalid) surrogates.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const ABSOLUTE_HTTP_URL = /^https?:\/\/[^/?#\s]+/i;

/**
 * The problems of one line, all of them: a line is checked whole, so one attempt shows everything
 * to fix (a line of another format misses several fields at once). Nothing is allocated until a
 * problem is found: nearly every line has none.
 */
class Problems {
  list: string[] | null = null;
  add(reason: string): null {
    (this.list ??= []).push(reason);
    return null;
  }
}

/**
 * Names other formats give footfall's required fields (Plausible's events, log shippers): a line
 * missing the field but carrying one of these is told which name footfall reads.
 */
const OTHER_NAMES: Record<string, readonly string[]> = {
  ts: ['timestamp', 'time', 'date', '@timestamp', 'datetime'],
  type: ['name', 'event', 'event_type', 'n'],
  site_id: ['domain', 'site', 'd'],
  url: ['u', 'page', 'href', 'pathname', 'page_url'],
  ip: ['client_ip', 'remote_addr', 'ip_address'],
  user_agent: ['ua', 'userAgent', 'user-agent', 'useragent'],
  action_name: ['name', 'event_name'],
};

/** `reason`, with the name footfall reads when the line carries the field under another one. */
function required(o: Record<string, unknown>, fields: readonly string[], reason: string): string {
  for (const field of fields) {
    const other = OTHER_NAMES[field]?.find((k) => !absent(o[k]));
    if (other !== undefined) return `${reason} (this line has "${other}"; footfall reads "${field}")`;
  }
  return reason;
}

/** Not sent: `null` and empty strings mean "not sent" for every field. */
function absent(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
}

// Any NUL or surrogate: nearly every value has neither, and one scan then settles both checks.
const NUL_OR_SURROGATE = /[\u0000\uD800-\uDFFF]/;

function checkText(p: Problems, name: string, v: string, limit: number): string | null {
  if (v.length > limit) return p.add(`${name} is longer than ${limit} characters`);
  if (!NUL_OR_SURROGATE.test(v)) return v;
  if (v.includes('\u0000')) return p.add(`${name} contains a NUL character`);
  if (LONE_SURROGATE.test(v)) return p.add(`${name} is not valid Unicode text`);
  return v;
}

/** /^[A-Z]{2}$/ */
function isCountryCode(v: string): boolean {
  if (v.length !== 2) return false;
  const a = v.charCodeAt(0);
  const b = v.charCodeAt(1);
  return a >= 65 && a <= 90 && b >= 65 && b <= 90;
}

function optionalString(p: Problems, o: Record<string, unknown>, name: StringField): string | null {
  const v = o[name];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') return p.add(`${name} must be a string`);
  if (v.trim() === '') return null;
  return checkText(p, name, v, FIELD_LIMITS[name]);
}

function optionalEnum<T extends string>(p: Problems, o: Record<string, unknown>, name: string, values: readonly T[]): T | null {
  const v = o[name];
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) return p.add(`${name} must be one of ${values.join(', ')}`);
  return v as T;
}

function parseTs(p: Problems, o: Record<string, unknown>, nowMs: number): number {
  const v = o.ts;
  if (v === undefined || v === null || v === '') return p.add(required(o, ['ts'], 'ts is required')) ?? NaN;
  if (typeof v !== 'string') return p.add('ts must be a string') ?? NaN;
  const ms = parseIsoInstant(v);
  if (ms === null) return p.add('ts must be an ISO 8601 instant with Z or an offset, e.g. 2024-05-01T12:00:00Z') ?? NaN;
  if (ms > nowMs + MAX_FUTURE_MS) return p.add('ts is more than 5 minutes in the future') ?? NaN;
  return ms;
}

function parseSiteId(p: Problems, o: Record<string, unknown>, defaultSiteId: string | undefined): string {
  const own = optionalString(p, o, 'site_id');
  if (own === null) {
    if (defaultSiteId !== undefined) return defaultSiteId;
    if (absent(o.site_id)) p.add(required(o, ['site_id'], 'site_id is required (or pass --site)'));
    return '';
  }
  if (defaultSiteId !== undefined && own !== defaultSiteId) p.add('site_id differs from --site');
  return own;
}

function parseEngagement(p: Problems, v: unknown): number {
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) return p.add('engagement_time_ms must be a non-negative integer') ?? 0;
  if (v > MAX_ENGAGEMENT_MS) return p.add(`engagement_time_ms is over ${MAX_ENGAGEMENT_MS} (one day)`) ?? 0;
  return v;
}

function parseType(p: Problems, o: Record<string, unknown>): 'pageview' | 'action' | null {
  const type = o.type;
  if (type === undefined || type === null || type === '') return p.add(required(o, ['type'], 'type is required'));
  if (type !== 'pageview' && type !== 'action') return p.add('type must be pageview or action');
  return type;
}

function parsePage(
  p: Problems,
  o: Record<string, unknown>,
  type: 'pageview' | 'action' | null,
): { url: string | null; path: string | null } {
  let url = optionalString(p, o, 'url');
  if (url !== null && url.charCodeAt(0) !== 47 /* / */ && !ABSOLUTE_HTTP_URL.test(url))
    url = p.add('url must be an absolute http(s) URL or a path starting with /');
  let path = optionalString(p, o, 'path');
  if (path !== null && !path.startsWith('/')) path = p.add('path must start with /');
  if (type === 'pageview' && absent(o.url) && absent(o.path)) p.add(required(o, ['url'], 'url or path is required for a pageview'));
  const page = path ?? url;
  if (page !== null && pathCanon(page).length > FIELD_LIMITS.path_canon) {
    p.add(`${path !== null ? 'path' : "url's path"} is longer than ${FIELD_LIMITS.path_canon} characters once decoded`);
  }
  return { url, path };
}

function parseVisitor(p: Problems, o: Record<string, unknown>): Pick<RawEvent, 'visitor_key' | 'ip' | 'user_agent'> {
  const visitor_key = optionalString(p, o, 'visitor_key');
  const ip = optionalString(p, o, 'ip');
  // An empty user agent is still a user agent (access logs write "-" for none); it derives a key.
  const uaValue = o.user_agent;
  let user_agent: string | null = null;
  if (uaValue !== undefined && uaValue !== null && typeof uaValue !== 'string') p.add('user_agent must be a string');
  else if (typeof uaValue === 'string') user_agent = checkText(p, 'user_agent', uaValue, FIELD_LIMITS.user_agent);
  if (absent(o.visitor_key)) {
    const hasIp = !absent(o.ip);
    const hasUa = uaValue !== undefined && uaValue !== null;
    if (!hasIp && !hasUa) p.add(required(o, ['ip', 'user_agent'], 'visitor_key, or ip and user_agent, is required'));
    else if (!hasIp) p.add(required(o, ['ip'], 'ip is required with user_agent when there is no visitor_key'));
    else if (!hasUa) p.add(required(o, ['user_agent'], 'user_agent is required with ip when there is no visitor_key'));
  }
  return { visitor_key, ip, user_agent };
}

/** `props` (docs/product.md §3): absent or null for none; its keys and values checked as any stored text. */
function parseProps(p: Problems, v: unknown): PropArrays {
  if (v === undefined || v === null) return { prop_keys: [], prop_values: [] };
  const read = readPropsObject(v);
  if (!read.ok) return p.add(read.reason) ?? { prop_keys: [], prop_values: [] };
  const props = propArrays(read.props);
  for (let i = 0; i < props.prop_keys.length; i++) {
    const key = props.prop_keys[i];
    checkText(p, 'a props key', key, Infinity);
    checkText(p, `props.${key}`, props.prop_values[i], Infinity);
  }
  return props;
}

function validate(o: Record<string, unknown>, opts: ValidateOptions, p: Problems): RawEvent {
  const ts_ms = parseTs(p, o, opts.nowMs);
  const type = parseType(p, o);
  const site_id = parseSiteId(p, o, opts.defaultSiteId);
  const { url, path } = parsePage(p, o, type);
  const visitor = parseVisitor(p, o);

  let country = optionalString(p, o, 'country');
  if (country !== null && !isCountryCode(country)) country = p.add('country must be an ISO 3166-1 alpha-2 code in upper case, e.g. US');

  const isAction = type === 'action';
  const action_name = isAction ? optionalString(p, o, 'action_name') : null;
  if (isAction && absent(o.action_name)) p.add(required(o, ['action_name'], 'action_name is required for an action'));
  let family = null;
  if (isAction && o.family !== undefined && o.family !== null && o.family !== '') {
    if (!isActionFamily(o.family)) p.add('family must be one of goals, forms, outbound, downloads, errors, custom, instrumentation');
    else family = o.family;
  }

  return {
    ts_ms,
    type: type ?? 'pageview',
    site_id,
    tenant_id: optionalString(p, o, 'tenant_id'),
    url,
    path,
    title: optionalString(p, o, 'title'),
    referrer: optionalString(p, o, 'referrer'),
    ...visitor,
    device_type: optionalEnum<DeviceType>(p, o, 'device_type', DEVICE_TYPES),
    browser_family: optionalString(p, o, 'browser_family'),
    os_family: optionalString(p, o, 'os_family'),
    country,
    region: optionalString(p, o, 'region'),
    city: optionalString(p, o, 'city'),
    utm_source: optionalString(p, o, 'utm_source'),
    utm_medium: optionalString(p, o, 'utm_medium'),
    utm_campaign: optionalString(p, o, 'utm_campaign'),
    traffic_class: optionalEnum<TrafficClass>(p, o, 'traffic_class', TRAFFIC_CLASSES),
    engagement_time_ms: parseEngagement(p, o.engagement_time_ms),
    action_name,
    family,
    event_name: isAction ? optionalString(p, o, 'event_name') : null,
    action_id: isAction ? optionalString(p, o, 'action_id') : null,
    action_target_host: isAction ? optionalString(p, o, 'action_target_host') : null,
    form_id: isAction ? optionalString(p, o, 'form_id') : null,
    form_action_path: isAction ? optionalString(p, o, 'form_action_path') : null,
    ...parseProps(p, o.props),
  };
}

/** Validate one parsed NDJSON line; the reason names every field at fault, `; `-separated. */
export function validateEventLine(obj: unknown, opts: ValidateOptions): ValidationResult {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
    return { ok: false, reason: 'line is not a JSON object' };
  }
  const p = new Problems();
  const event = validate(obj as Record<string, unknown>, opts, p);
  return p.list === null ? { ok: true, event } : { ok: false, reason: p.list.join('; ') };
}
