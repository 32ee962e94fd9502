// In-process LRU of serialized responses, bounded by bytes (bodies plus keys), not entry count:
// one 4 MiB content report weighs as much as thousands of small breakdowns.
import type { CachedBody, ResponseCache, ResponseCacheStats } from '../ports/response-cache.js';

export const DEFAULT_RESPONSE_CACHE_BYTES = 64 * 1024 * 1024;

export class MemoryResponseCache implements ResponseCache {
  // Map iteration order is insertion order: re-inserting on a hit makes the first key the LRU one.
  private readonly entries = new Map<string, CachedBody>();
  private held = 0;
  private hits = 0;
  private misses = 0;

  constructor(private readonly maxBytes: number = DEFAULT_RESPONSE_CACHE_BYTES) {
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 0)
      throw new RangeError(`cache maxBytes must be a non-negative integer, got ${maxBytes}`);
  }

  async get(key: string): Promise<CachedBody | undefined> {
    const found = this.entries.get(key);
    if (!found) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.entries.delete(key);
    this.entries.set(key, found);
    return found;
  }

  async set(key: string, value: CachedBody): Promise<void> {
    const weight = weigh(key, value);
    this.drop(key);
    // An entry over a quarter of the budget would evict most of the cache for one response.
    if (weight > this.maxBytes / 4) return;
    while (this.held + weight > this.maxBytes) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.drop(oldest.value);
    }
    this.entries.set(key, value);
    this.held += weight;
  }

  stats(): ResponseCacheStats {
    return { entries: this.entries.size, bytes: this.held, maxBytes: this.maxBytes, hits: this.hits, misses: this.misses };
  }

  private drop(key: string): void {
    const old = this.entries.get(key);
    if (!old) return;
    this.entries.delete(key);
    this.held -= weigh(key, old);
  }
}

/** Keys are mostly ASCII; two bytes per UTF-16 unit bounds them without encoding each one. */
function weigh(key: string, value: CachedBody): number {
  return value.body.length + key.length * 2;
}
