// Country, region and city of an event from its client address (docs/product.md §3): the import's
// lines and, later, live collection. The address itself is dropped afterwards like the user agent.
import type { GeoLocation } from '../../ports/geo-lookup.js';
import type { RawEvent } from './raw-event.js';
import { canonicalRegion } from './regions.js';

/**
 * Fills the location fields a line leaves empty from where its address is. Explicit fields win,
 * and a derived value is used only where it agrees with them: nothing derived under another
 * country, no derived city under another region (a line saying DE is not given a US city).
 */
export function applyLocation(raw: Pick<RawEvent, 'country' | 'region' | 'city'>, found: GeoLocation | null): void {
  if (found === null) return;
  if (raw.country !== null && raw.country !== found.country) return;
  raw.country = found.country;
  if (raw.region !== null && canonicalRegion(raw.country, raw.region) !== found.region) return;
  raw.region ??= found.region;
  raw.city ??= found.city;
}
