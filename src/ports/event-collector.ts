// Live collection (docs/product.md §9): what POST /api/event hands over, and what the read side learns about
// events accepted but not yet readable (dataFreshness). Implementation: ingest/collect/collector.ts.

export interface CollectRequest {
  /** the request body as sent (JSON, whatever its Content-Type said) */
  body: string;
  /** the client's address (the socket's, or X-Forwarded-For's under FOOTFALL_TRUST_PROXY); never stored */
  clientIp: string;
  /** the User-Agent header; null when none was sent */
  userAgent: string | null;
}

/**
 * What became of one request. `accepted` is answered only once the event is durable; `ignored` (an
 * unknown domain, a suspended site, an action a strict site does not keep) is answered the same way,
 * so nobody learns which domains exist. `invalid` names what to fix: 400 for a body that is not a
 * JSON object, 422 for a field.
 */
export type CollectOutcome =
  | { kind: 'accepted' /** an engagement event (added to a pageview's time), not an event of its own */; engagement: boolean }
  | { kind: 'ignored' }
  | { kind: 'invalid'; status: 400 | 422; message: string; field?: string };

/** What this process knows of a site's live events (null from progress(): it collected none). */
export interface CollectionProgress {
  /** when the newest event of the site this process accepted arrived, ms since epoch */
  newestAcceptedMs: number;
  /** accepted events of the site are waiting for the loader (not yet readable) */
  pending: boolean;
  /** while pending: when the oldest of those waiting events arrived (null otherwise) */
  waitingSinceMs: number | null;
}

export interface EventCollector {
  collect(request: CollectRequest): Promise<CollectOutcome>;
  progress(siteId: string): CollectionProgress | null;
}
