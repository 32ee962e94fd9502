// The analytics response cache: serialized report data by key. Keys carry the events store's data
// version, so an import makes older entries unreachable (they age out of the LRU); nothing is ever
// invalidated by hand. Implementations: cache/memory-response-cache.ts (in process).

export interface CachedBody {
  /**
   * serialized UTF-8 (for reports: the envelope's JSON without its per-request meta; or a CSV body),
   * encoded once when stored: a hit copies these bytes out rather than encoding the text again
   */
  body: Buffer;
}

export interface ResponseCacheStats {
  entries: number;
  /** bytes held: bodies and keys */
  bytes: number;
  maxBytes: number;
  hits: number;
  misses: number;
}

export interface ResponseCache {
  get(key: string): Promise<CachedBody | undefined>;
  /** An entry that cannot fit the cache's budget is not stored. */
  set(key: string, value: CachedBody): Promise<void>;
  stats(): ResponseCacheStats;
}
