// Where a client address is (docs/product.md §3, §9): imports and live collection enrich events
// with it, then drop the address. Implementation: ingest/parse/mmdb-geo-lookup.ts (offline MMDB).

export interface GeoLocation {
  /** ISO 3166-1 alpha-2, upper case */
  country: string;
  /** ISO 3166-2 code, e.g. US-CA; null when the database names no region, or one without a code */
  region: string | null;
  /** the database's (English) city name; null when it has none */
  city: string | null;
}

export interface GeoLookup {
  /** null for an address the database does not place: private, reserved, unknown, or not an address */
  lookup(ip: string): GeoLocation | null;
}
