// A bounded memo for pure string functions of the import (url facts, referrer hosts, host
// classes): logs repeat a few thousand values, and computing them costs more than a lookup.

/**
 * Two generations of at most `limit` entries: a hit in the older one moves to the newer, and when
 * the newer fills up the older is dropped. An approximate LRU without per-hit bookkeeping; memory
 * stays under 2 x limit entries, and keys longer than `maxKeyLength` are computed, never kept.
 */
export class BoundedMemo<V> {
  private current = new Map<string, V>();
  private previous = new Map<string, V>();

  constructor(
    private readonly compute: (key: string) => V,
    private readonly limit = 4096,
    private readonly maxKeyLength = 512,
  ) {}

  get(key: string): V {
    let v = this.current.get(key);
    if (v !== undefined) return v;
    if (key.length > this.maxKeyLength) return this.compute(key);
    v = this.previous.get(key);
    if (v === undefined) v = this.compute(key);
    if (this.current.size >= this.limit) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(key, v);
    return v;
  }
}
