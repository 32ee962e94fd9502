// From a validated line to the stored event (docs/product.md §3, §4): profile stamping, user-agent
// enrichment, visitor key, page, utm, referrer host and channel, then the strict profile's cuts (utm,
// region, city, custom properties).
import { SIMPLE_ACTIONS, type Channel, type PropArrays, type StoredEvent } from '../../domain/events.js';
import type { Profile } from '../../domain/plans.js';
import { channelOf } from './channel.js';
import { familyOf } from './families.js';
import type { RawEvent } from './raw-event.js';
import { parseIsoInstant, utcDayOf } from './timestamp.js';
import { trafficClassOf } from './agent-rules.js';
import { parseUserAgent } from './user-agent.js';
import { pathCanon, queryFacts, referrerHost } from './url.js';
import { canonicalRegion } from './regions.js';
import { dailyVisitorKey } from './visitor-key.js';

/** What normalization needs of a site; structurally a subset of the catalog's Site. */
export interface NormalizeSite {
  id: string;
  hostnames: readonly string[];
  collectionProfile: Profile;
  /** ISO instant from which collectionProfile applies; null = since the site began */
  profileEffectiveAt: string | null;
}

/**
 * A stored event without its id, plus the event's channel. The channel is computed here, from the
 * utm values as sent, because under strict those values are not stored while the channel is
 * (docs/product.md §4.1); a session's channel is its first event's.
 */
export type NormalizedEvent = Omit<StoredEvent, 'event_id'> & PropArrays & { channel: Channel };

const SIMPLE = new Set<string>(SIMPLE_ACTIONS);

/** The profile in force at `tsMs`: the site's from effective_at on (inclusive), the other one before. */
export function profileAt(site: Pick<NormalizeSite, 'collectionProfile' | 'profileEffectiveAt'>, tsMs: number): Profile {
  if (site.profileEffectiveAt === null) return site.collectionProfile;
  const effectiveMs = parseIsoInstant(site.profileEffectiveAt) ?? Date.parse(site.profileEffectiveAt);
  if (Number.isNaN(effectiveMs)) throw new Error(`invalid profileEffectiveAt: ${site.profileEffectiveAt}`);
  if (tsMs >= effectiveMs) return site.collectionProfile;
  return site.collectionProfile === 'strict' ? 'extended' : 'strict';
}

/**
 * Normalize one validated event for `site`. Returns null when the profile in force does not
 * store the event at all (an action outside the simple actions under strict): the importer
 * counts it as skipped, not as rejected. Explicit fields always win over derived ones.
 */
export function normalizeEvent(raw: RawEvent, site: NormalizeSite, secret: string | Buffer): NormalizedEvent | null {
  if (raw.site_id !== site.id) throw new Error(`event of site ${raw.site_id} normalized for site ${site.id}`);
  const profile = profileAt(site, raw.ts_ms);
  const strict = profile === 'strict';
  const isAction = raw.type === 'action';
  if (isAction && strict && !SIMPLE.has(raw.action_name ?? '')) return null;

  // An empty user agent says nothing about the device, but a client sending none is a bot.
  const ua = raw.user_agent !== null && raw.user_agent.trim() !== '' ? parseUserAgent(raw.user_agent) : null;
  const derivedClass = raw.user_agent !== null ? trafficClassOf(raw.user_agent) : 'human';
  let visitorKey = raw.visitor_key;
  if (visitorKey === null) {
    if (raw.ip === null || raw.user_agent === null) throw new Error('event has neither visitor_key nor ip and user_agent');
    visitorKey = dailyVisitorKey(secret, site.id, utcDayOf(raw.ts_ms), raw.ip, raw.user_agent);
  }

  // A `path` names the page; the url (else the path) carries the query with utm and click ids.
  const page = raw.path ?? raw.url;
  const query = raw.url ?? raw.path;
  const fromUrl = query !== null ? queryFacts(query) : null;
  const utm_source = raw.utm_source ?? fromUrl?.utm_source ?? null;
  const utm_medium = raw.utm_medium ?? fromUrl?.utm_medium ?? null;
  const utm_campaign = raw.utm_campaign ?? fromUrl?.utm_campaign ?? null;
  const has_click_id = fromUrl?.has_click_id ?? false;
  const referrer_host = referrerHost(raw.referrer, site.hostnames);
  const channel = channelOf({ utm_source, utm_medium, utm_campaign, has_click_id, referrer_host });

  return {
    site_id: site.id,
    tenant_id: raw.tenant_id,
    ts_ms: raw.ts_ms,
    type: raw.type,
    profile,
    visitor_key: visitorKey,
    path_canon: page !== null ? pathCanon(page) : null,
    page_title: raw.title,
    referrer_host,
    utm_source: strict ? null : utm_source,
    utm_medium: strict ? null : utm_medium,
    utm_campaign: strict ? null : utm_campaign,
    has_click_id,
    country: raw.country,
    // Stored as an ISO 3166-2 code when the line's value names one (regions.ts), else as sent.
    region: strict || raw.region === null ? null : canonicalRegion(raw.country, raw.region),
    city: strict ? null : raw.city,
    device_type: raw.device_type ?? ua?.device_type ?? null,
    browser_family: raw.browser_family ?? ua?.browser_family ?? null,
    os_family: raw.os_family ?? ua?.os_family ?? null,
    traffic_class: raw.traffic_class ?? derivedClass,
    engagement_time_ms: raw.engagement_time_ms,
    action_name: isAction ? raw.action_name : null,
    family: isAction ? familyOf(raw.action_name ?? '', raw.family) : null,
    event_name: raw.event_name,
    action_id: raw.action_id,
    action_target_host: raw.action_target_host,
    form_id: raw.form_id,
    form_action_path: raw.form_action_path,
    channel,
    // custom properties are what a page chooses to send: strict keeps none (docs/decisions/custom-properties.md)
    prop_keys: strict ? [] : raw.prop_keys,
    prop_values: strict ? [] : raw.prop_values,
  };
}
