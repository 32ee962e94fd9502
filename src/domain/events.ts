// The shape of a stored event, shared by the importer (ingest/) and every analytics engine.
// docs/product.md sections 3, 4 and 8 define each field.
import type { Profile } from './plans.js';

export const TRAFFIC_CLASSES = ['human', 'ai_agent', 'bot', 'ai_bot'] as const;
export type TrafficClass = (typeof TRAFFIC_CLASSES)[number];

export const TRAFFIC_FILTERS = {
  humans: ['human'],
  humans_including_ai: ['human', 'ai_agent'],
  bots_only: ['bot', 'ai_bot'],
  ai_bots_only: ['ai_bot'],
  all: ['human', 'ai_agent', 'bot', 'ai_bot'],
} as const satisfies Record<string, readonly TrafficClass[]>;
export type TrafficFilter = keyof typeof TRAFFIC_FILTERS;

/** The traffic filter whose classes are exactly `classes` (rollups are stored per filter), or null. */
export function trafficFilterOf(classes: readonly string[]): TrafficFilter | null {
  const set = new Set(classes);
  for (const [name, members] of Object.entries(TRAFFIC_FILTERS) as [TrafficFilter, readonly string[]][]) {
    if (members.length === set.size && members.every((m) => set.has(m))) return name;
  }
  return null;
}

export const CHANNELS = ['Direct', 'Search', 'Referral', 'Social', 'Email', 'Paid', 'Other'] as const;
export type Channel = (typeof CHANNELS)[number];

export const ACTION_FAMILIES = ['goals', 'forms', 'outbound', 'downloads', 'errors', 'custom', 'instrumentation'] as const;
export type ActionFamily = (typeof ACTION_FAMILIES)[number];
/** Families whose actions make a session engaged and not a bounce. */
export const MEANINGFUL_FAMILIES: readonly ActionFamily[] = ['goals', 'forms', 'outbound', 'downloads', 'custom'];
/** The bounded simple actions a strict site stores. */
export const SIMPLE_ACTIONS = ['ui.click', 'outbound.click', 'file.download', 'form.submit'] as const;

export const DEVICE_TYPES = ['desktop', 'mobile', 'tablet', 'other'] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];

/** Where and on what a visit happened: an event's, and its session's from the first event. */
export interface PlaceAndDevice {
  country: string | null;
  /** extended only */
  region: string | null;
  /** extended only */
  city: string | null;
  device_type: DeviceType | null;
  browser_family: string | null;
  os_family: string | null;
}

/** What an action names (all null on a pageview), as an import line gives it and the store keeps it. */
export interface ActionFields {
  action_name: string | null;
  family: ActionFamily | null;
  event_name: string | null;
  action_id: string | null;
  action_target_host: string | null;
  form_id: string | null;
  form_action_path: string | null;
}

/**
 * An event's custom properties (docs/decisions/custom-properties.md) as the stores hold them: parallel
 * arrays, keys sorted in UTF-8 byte order, values at the same places; both empty for none (and under strict).
 */
export interface PropArrays {
  prop_keys: string[];
  prop_values: string[];
}

/** One event as the analytics store holds it, after validation, enrichment and profile stamping. */
export interface StoredEvent extends PlaceAndDevice, ActionFields {
  /** deterministic identity: hash of content + occurrence number within the batch (docs/product.md §8.2) */
  event_id: string;
  site_id: string;
  tenant_id: string | null;
  /** ms since epoch, UTC */
  ts_ms: number;
  type: 'pageview' | 'action';
  /** the collection profile in force at ts_ms */
  profile: Profile;
  visitor_key: string;
  path_canon: string | null;
  page_title: string | null;
  /** lower case, without www.; null for none or a self-referral */
  referrer_host: string | null;
  /** extended only (null under strict) */
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  /** gclid or msclkid present in the URL (counts as Paid) */
  has_click_id: boolean;
  traffic_class: TrafficClass;
  engagement_time_ms: number;
}

/**
 * One session as the analytics store derives it from events (docs/product.md §4.2, §8.3): events of one
 * (site, tenant, visitor_key) ordered by time (pageview before action on ties), split when the
 * gap is over 30 minutes and at 00:00 UTC. Rebuilt for every (site, day) an import touches.
 */
export interface StoredSession extends PlaceAndDevice {
  session_id: string;
  site_id: string;
  tenant_id: string | null;
  visitor_key: string;
  /** UTC day of the session, YYYY-MM-DD */
  day: string;
  start_ms: number;
  end_ms: number;
  /** from the first event */
  profile: Profile;
  traffic_class: TrafficClass;
  channel: Channel;
  referrer_host: string | null;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  /** first and last pageviews' path_canon (null when the session has no pageview) */
  entry_page: string | null;
  exit_page: string | null;
  pageviews: number;
  events: number;
  engagement_ms: number;
  meaningful_actions: number;
  is_bounce: boolean;
  is_engaged: boolean;
}

/** Session gap (docs/product.md §4.2): a new session starts when the gap is over this. */
export const SESSION_GAP_MS = 1_800_000;
/** Engaged when engagement time reaches this (docs/product.md §4.5). */
export const ENGAGED_MS = 10_000;
/** An event's engagement time above one day is a collector bug, not a visit: the most one can hold. */
export const MAX_ENGAGEMENT_MS = 86_400_000;
