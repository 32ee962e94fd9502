// DnsTxtResolver over a map, for tests: records are set and removed by hand, and a name can be made
// to go unanswered.
import type { DnsTxtResolver, TxtLookup } from '../ports/dns-txt-resolver.js';

export class MemoryDnsTxtResolver implements DnsTxtResolver {
  private readonly records = new Map<string, string[][]>();
  private readonly silent = new Set<string>();
  /** every name asked, in order */
  readonly asked: string[] = [];

  /** Adds one TXT record (its chunks) to `name`. */
  add(name: string, ...chunks: string[]): this {
    this.records.set(name.toLowerCase(), [...(this.records.get(name.toLowerCase()) ?? []), chunks]);
    return this;
  }

  clear(name: string): this {
    this.records.delete(name.toLowerCase());
    this.silent.delete(name.toLowerCase());
    return this;
  }

  /** Lookups of `name` get no answer, as when no resolver replies. */
  unanswered(name: string): this {
    this.silent.add(name.toLowerCase());
    return this;
  }

  async resolveTxt(name: string): Promise<TxtLookup> {
    const key = name.toLowerCase();
    this.asked.push(key);
    if (this.silent.has(key)) return { answered: false, reason: 'ETIMEOUT' };
    return { answered: true, records: (this.records.get(key) ?? []).map((r) => [...r]) };
  }
}
