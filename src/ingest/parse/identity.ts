// Event identity (docs/product.md §8.2): a hash of the event's content and its occurrence number among
// identical events of the same import, so re-importing a batch adds nothing while real repeats
// inside one batch are all kept.
import type { StoredEvent } from '../../domain/events.js';
import { sha256 } from '../../domain/sha256.js';

/**
 * The content fields, in a fixed order: the hash never depends on the key order of an input
 * object. Adding a field here changes every id, so new fields go at the end and only with a
 * migration plan.
 */
export const IDENTITY_FIELDS = [
  'site_id',
  'tenant_id',
  'ts_ms',
  'type',
  'profile',
  'visitor_key',
  'path_canon',
  'page_title',
  'referrer_host',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'has_click_id',
  'country',
  'region',
  'city',
  'device_type',
  'browser_family',
  'os_family',
  'traffic_class',
  'engagement_time_ms',
  'action_name',
  'family',
  'event_name',
  'action_id',
  'action_target_host',
  'form_id',
  'form_action_path',
  'channel',
] as const;

/**
 * Custom properties are content too, but only of the events that have some: their keys and values
 * (two arrays, PropArrays order) follow IDENTITY_FIELDS in the content of such an event, and the
 * content of an event without any is exactly IDENTITY_FIELDS' (the ids stored before properties
 * existed stay the ids of those events). Why: docs/decisions/custom-properties.md.
 */
export const PROP_IDENTITY_FIELDS = ['prop_keys', 'prop_values'] as const;

type IdentityInput = Omit<StoredEvent, 'event_id'> & {
  channel?: string;
  prop_keys?: readonly string[];
  prop_values?: readonly string[];
};

/**
 * Canonical serialization: a JSON array of the fields' values in IDENTITY_FIELDS order (absent = null),
 * then, when the event has custom properties, their keys and values.
 */
export function canonicalContent(ev: IdentityInput): string {
  // Spelled out rather than mapped over IDENTITY_FIELDS: this runs once per imported line, and
  // the literal builds the same array as IDENTITY_FIELDS.map would (a test holds them equal).
  const e = ev as Partial<IdentityInput>;
  const props =
    e.prop_keys !== undefined && e.prop_keys.length > 0 ? `,${JSON.stringify(e.prop_keys)},${JSON.stringify(e.prop_values)}]` : null;
  const content = JSON.stringify([
    e.site_id ?? null,
    e.tenant_id ?? null,
    e.ts_ms ?? null,
    e.type ?? null,
    e.profile ?? null,
    e.visitor_key ?? null,
    e.path_canon ?? null,
    e.page_title ?? null,
    e.referrer_host ?? null,
    e.utm_source ?? null,
    e.utm_medium ?? null,
    e.utm_campaign ?? null,
    e.has_click_id ?? null,
    e.country ?? null,
    e.region ?? null,
    e.city ?? null,
    e.device_type ?? null,
    e.browser_family ?? null,
    e.os_family ?? null,
    e.traffic_class ?? null,
    e.engagement_time_ms ?? null,
    e.action_name ?? null,
    e.family ?? null,
    e.event_name ?? null,
    e.action_id ?? null,
    e.action_target_host ?? null,
    e.form_id ?? null,
    e.form_action_path ?? null,
    e.channel ?? null,
  ]);
  return props === null ? content : content.slice(0, -1) + props;
}

/** The encoded row's tail after the identity fields of a content without props: two empty arrays. */
const NO_PROPS = ',[],[]]';

const sha256Hex = (s: string) => sha256(s, 'hex');

/** The id of the `occurrence`-th (1-based) identical copy of `ev` in its batch: 32 hex chars of SHA-256. */
export function eventIdentity(ev: IdentityInput, occurrence: number): string {
  if (!Number.isInteger(occurrence) || occurrence < 1) throw new Error(`occurrence must be an integer >= 1, got ${occurrence}`);
  return sha256Hex(`${canonicalContent(ev)}\n${occurrence}`).slice(0, 32);
}

/**
 * The first occurrence's id of `ev` and the row's wire encoding (ports/event-store.ts encodeEventRow:
 * the id, then the same values in the same order as the canonical content, whose props, when it has
 * none, are the two empty arrays), from ONE serialization.
 */
export function identifyFirst(ev: IdentityInput): { id: string; encoded: string } {
  const content = canonicalContent(ev);
  const id = sha256Hex(`${content}\n1`).slice(0, 32);
  const withProps = ev.prop_keys !== undefined && ev.prop_keys.length > 0;
  return { id, encoded: `["${id}",${withProps ? content.slice(1) : content.slice(1, -1) + NO_PROPS}` };
}

/**
 * An identity assigner for one batch that may arrive in chunks: it counts occurrences across all
 * calls, so an import split into several writes still numbers repeats 1, 2, 3... Use one per
 * import (file or stdin), never one per chunk.
 */
export function createIdentityAssigner(): <T extends IdentityInput>(ev: T) => T & { event_id: string } {
  const seen = new Map<string, number>();
  return <T extends IdentityInput>(ev: T) => {
    const content = canonicalContent(ev);
    // Keyed by a digest, not the content itself, to bound memory per distinct event.
    const digest = sha256Hex(content);
    const occurrence = (seen.get(digest) ?? 0) + 1;
    seen.set(digest, occurrence);
    return { ...ev, event_id: sha256Hex(`${content}\n${occurrence}`).slice(0, 32) };
  };
}

/** Ids for a whole batch at once, occurrences counted within it. */
export function assignIdentities<T extends IdentityInput>(events: readonly T[]): (T & { event_id: string })[] {
  const assign = createIdentityAssigner();
  return events.map((ev) => assign(ev));
}
