// Looks up TXT records, for the proof of a domain (services/ownership/verify-site.ts).
// Implementations: dns/ (node:dns against the configured resolvers; in memory for tests).

/**
 * What a lookup found. `answered`: a resolver answered, with the name's TXT records (each record's
 * chunks as sent; none when the name or its TXT records do not exist). Not answered: no resolver
 * replied in time, or each refused or failed; worth retrying later.
 */
export type TxtLookup = { answered: true; records: string[][] } | { answered: false; reason: string };

export interface DnsTxtResolver {
  /** Never throws for a DNS failure and never waits past its own bounded timeout. */
  resolveTxt(name: string): Promise<TxtLookup>;
}
