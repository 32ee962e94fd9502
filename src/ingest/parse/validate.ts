// Validation of one parsed NDJSON object (docs/product.md §3). Pure: the caller passes `nowMs`.
// Unknown fields are ignored so collectors can send more than we store; `null` and empty strings mean
// "not sent" for optional fields.
import { DEVICE_TYPES, TRAFFIC_CLASSES, type DeviceType, type TrafficClass } from '../../domain/events.js';
import { isActionFamily } from './families.js';
import { FIELD_LIMITS, MAX_ENGAGEMENT_MS, MAX_FUTURE_MS, type RawEvent } from './raw-event.js';
import { parseIsoInstant } from './timestamp.js';
import { pathCanon } from './url.js';

export type ValidationResult = { ok: true; event: RawEvent } | { ok: false; reason: string };

export interface ValidateOptions {
  /** `--site`: used when a line has no site_id; a line naming another site is rejected */
  defaultSiteId?: string;
  nowMs: number;
}

class Rejection extends Error {}
type StringField = keyof typeof FIELD_LIMITS;

// In u-mode a surrogate pair is one code point, so this finds only lone (invalid) surrogates.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const ABSOLUTE_HTTP_URL = /^https?:\/\/[^/?#\s]+/i;

function reject(reason: string): never {
  throw new Rejection(reason);
}

// Any NUL or surrogate: nearly every value has neither, and one scan then settles both checks.
const NUL_OR_SURROGATE = /[\u0000\uD800-\uDFFF]/;

function checkText(name: string, v: string, limit: number): string {
  if (v.length > limit) reject(`${name} is longer than ${limit} characters`);
  if (!NUL_OR_SURROGATE.test(v)) return v;
  if (v.includes('\u0000')) reject(`${name} contains a NUL character`);
  if (LONE_SURROGATE.test(v)) reject(`${name} is not valid Unicode text`);
  return v;
}

/** /^[A-Z]{2}$/ */
function isCountryCode(v: string): boolean {
  if (v.length !== 2) return false;
  const a = v.charCodeAt(0);
  const b = v.charCodeAt(1);
  return a >= 65 && a <= 90 && b >= 65 && b <= 90;
}

function optionalString(o: Record<string, unknown>, name: StringField): string | null {
  const v = o[name];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') reject(`${name} must be a string`);
  if (v.trim() === '') return null;
  return checkText(name, v, FIELD_LIMITS[name]);
}

function optionalEnum<T extends string>(o: Record<string, unknown>, name: string, values: readonly T[]): T | null {
  const v = o[name];
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) {
    reject(`${name} must be one of ${values.join(', ')}`);
  }
  return v as T;
}

function parseTs(v: unknown, nowMs: number): number {
  if (v === undefined || v === null || v === '') reject('ts is required');
  if (typeof v !== 'string') reject('ts must be a string');
  const ms = parseIsoInstant(v);
  if (ms === null) reject('ts must be an ISO 8601 instant with Z or an offset, e.g. 2024-05-01T12:00:00Z');
  if (ms > nowMs + MAX_FUTURE_MS) reject('ts is more than 5 minutes in the future');
  return ms;
}

function parseSiteId(o: Record<string, unknown>, defaultSiteId: string | undefined): string {
  const own = optionalString(o, 'site_id');
  if (own === null) {
    if (defaultSiteId === undefined) reject('site_id is required (or pass --site)');
    return defaultSiteId;
  }
  if (defaultSiteId !== undefined && own !== defaultSiteId) reject('site_id differs from --site');
  return own;
}

function parseEngagement(v: unknown): number {
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
    reject('engagement_time_ms must be a non-negative integer');
  }
  if (v > MAX_ENGAGEMENT_MS) reject(`engagement_time_ms is over ${MAX_ENGAGEMENT_MS} (one day)`);
  return v;
}

function validate(o: Record<string, unknown>, opts: ValidateOptions): RawEvent {
  const ts_ms = parseTs(o.ts, opts.nowMs);
  const type = o.type;
  if (type === undefined || type === null || type === '') reject('type is required');
  if (type !== 'pageview' && type !== 'action') reject('type must be pageview or action');
  const site_id = parseSiteId(o, opts.defaultSiteId);

  const url = optionalString(o, 'url');
  if (url !== null && url.charCodeAt(0) !== 47 /* / */ && !ABSOLUTE_HTTP_URL.test(url)) {
    reject('url must be an absolute http(s) URL or a path starting with /');
  }
  const path = optionalString(o, 'path');
  if (path !== null && !path.startsWith('/')) reject('path must start with /');
  if (type === 'pageview' && url === null && path === null) reject('url or path is required for a pageview');
  const page = path ?? url;
  if (page !== null && pathCanon(page).length > FIELD_LIMITS.path_canon) {
    reject(`${path !== null ? 'path' : "url's path"} is longer than ${FIELD_LIMITS.path_canon} characters once decoded`);
  }

  const visitor_key = optionalString(o, 'visitor_key');
  const ip = optionalString(o, 'ip');
  // An empty user agent is still a user agent (access logs write "-" for none); it derives a key.
  const uaValue = o.user_agent;
  if (uaValue !== undefined && uaValue !== null && typeof uaValue !== 'string') reject('user_agent must be a string');
  const user_agent = typeof uaValue === 'string' ? checkText('user_agent', uaValue, FIELD_LIMITS.user_agent) : null;
  if (visitor_key === null) {
    if (ip === null && user_agent === null) reject('visitor_key, or ip and user_agent, is required');
    if (ip === null) reject('ip is required with user_agent when there is no visitor_key');
    if (user_agent === null) reject('user_agent is required with ip when there is no visitor_key');
  }

  const country = optionalString(o, 'country');
  if (country !== null && !isCountryCode(country)) reject('country must be an ISO 3166-1 alpha-2 code in upper case, e.g. US');

  const isAction = type === 'action';
  const action_name = isAction ? optionalString(o, 'action_name') : null;
  if (isAction && action_name === null) reject('action_name is required for an action');
  let family = null;
  if (isAction && o.family !== undefined && o.family !== null && o.family !== '') {
    if (!isActionFamily(o.family)) reject('family must be one of goals, forms, outbound, downloads, errors, custom, instrumentation');
    family = o.family;
  }

  return {
    ts_ms,
    type,
    site_id,
    tenant_id: optionalString(o, 'tenant_id'),
    url,
    path,
    title: optionalString(o, 'title'),
    referrer: optionalString(o, 'referrer'),
    visitor_key,
    ip,
    user_agent,
    device_type: optionalEnum<DeviceType>(o, 'device_type', DEVICE_TYPES),
    browser_family: optionalString(o, 'browser_family'),
    os_family: optionalString(o, 'os_family'),
    country,
    region: optionalString(o, 'region'),
    city: optionalString(o, 'city'),
    utm_source: optionalString(o, 'utm_source'),
    utm_medium: optionalString(o, 'utm_medium'),
    utm_campaign: optionalString(o, 'utm_campaign'),
    traffic_class: optionalEnum<TrafficClass>(o, 'traffic_class', TRAFFIC_CLASSES),
    engagement_time_ms: parseEngagement(o.engagement_time_ms),
    action_name,
    family,
    event_name: isAction ? optionalString(o, 'event_name') : null,
    action_id: isAction ? optionalString(o, 'action_id') : null,
    action_target_host: isAction ? optionalString(o, 'action_target_host') : null,
    form_id: isAction ? optionalString(o, 'form_id') : null,
    form_action_path: isAction ? optionalString(o, 'form_action_path') : null,
  };
}

/** Validate one parsed NDJSON line; the reason names the field at fault. */
export function validateEventLine(obj: unknown, opts: ValidateOptions): ValidationResult {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
    return { ok: false, reason: 'line is not a JSON object' };
  }
  try {
    return { ok: true, event: validate(obj as Record<string, unknown>, opts) };
  } catch (err) {
    if (err instanceof Rejection) return { ok: false, reason: err.message };
    throw err;
  }
}
