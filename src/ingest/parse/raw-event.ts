// One import line after validation (docs/product.md §3), before enrichment and profile
// stamping.
import type { ActionFields, DeviceType, TrafficClass } from '../../domain/events.js';
import type { PropArrays } from './props.js';

/** `prop_keys`/`prop_values`: the line's custom properties (props.ts), empty when it sent none. */
export interface RawEvent extends ActionFields, PropArrays {
  /** ms since epoch, UTC, parsed from `ts` */
  ts_ms: number;
  type: 'pageview' | 'action';
  site_id: string;
  tenant_id: string | null;
  url: string | null;
  path: string | null;
  title: string | null;
  referrer: string | null;
  visitor_key: string | null;
  /** only to derive a daily key; never stored */
  ip: string | null;
  /** only to derive a key and the UA fields; never stored ('' when sent empty) */
  user_agent: string | null;
  device_type: DeviceType | null;
  browser_family: string | null;
  os_family: string | null;
  country: string | null;
  region: string | null;
  city: string | null;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  traffic_class: TrafficClass | null;
  engagement_time_ms: number;
}

/** Longest accepted value of each string field, in UTF-16 code units. */
export const FIELD_LIMITS = {
  site_id: 128,
  tenant_id: 128,
  visitor_key: 128,
  url: 8192,
  path: 8192,
  /** the stored path_canon, after decoding */
  path_canon: 2048,
  title: 1024,
  referrer: 8192,
  ip: 64,
  country: 64,
  user_agent: 2048,
  browser_family: 64,
  os_family: 64,
  region: 128,
  city: 128,
  utm_source: 256,
  utm_medium: 256,
  utm_campaign: 256,
  action_name: 256,
  event_name: 256,
  action_id: 256,
  action_target_host: 255,
  form_id: 256,
  form_action_path: 2048,
} as const;

export { MAX_ENGAGEMENT_MS } from '../../domain/events.js';
/** docs/product.md §8.2: events more than 5 minutes in the future are rejected. */
export const MAX_FUTURE_MS = 5 * 60_000;
