// A site's first and newest stored event, as the DuckDB store knows them. Every analytics request
// needs both (site-facts.ts: availability and freshness), and reading them is a scan of the site's
// events (about 25 ms at 1M events, growing with the store), paid again whenever the data version
// moves: with live collection, at every load. But a load only adds events, so the edges after it are
// the edges before it widened by the first and last of the events it added; only a removal (a
// purge, a deletion, an undo) needs the scan again.
// Each site's edges are kept beside the data version they belong to (DuckDbEventStore.dataVersion).
// A scan is remembered under the version read BEFORE it: a commit landing meanwhile only makes the
// entry stale (the next read scans again), never wrong. Widening is idempotent (min and max), so a
// scan that already saw the commit's events and is then widened by them stays exact.

export interface Edges {
  /** the first stored event's ts, ms; null: the site has none */
  firstMs: number | null;
  /** the newest stored event's ts, ms */
  newestMs: number | null;
}

/** The first and last ts (ms) of the events one commit added to a site. */
export interface Span {
  firstMs: number;
  lastMs: number;
}

export class SiteEdges {
  private readonly known = new Map<string, { version: number; edges: Edges }>();
  /** scans under way, by site and version: concurrent readers share one */
  private readonly scanning = new Map<string, Promise<Edges>>();
  /** scans run so far (tests and benches check that a load does not cost one) */
  scans = 0;

  constructor(
    private readonly scan: (siteId: string) => Promise<Edges>,
    private readonly versionOf: (siteId: string) => number,
  ) {}

  of(siteId: string): Promise<Edges> {
    const version = this.versionOf(siteId);
    const k = this.known.get(siteId);
    if (k !== undefined && k.version === version) return Promise.resolve(k.edges);
    const key = `${version}:${siteId}`;
    let pending = this.scanning.get(key);
    if (pending === undefined) {
      this.scans++;
      pending = this.scan(siteId).then((edges) => {
        const now = this.known.get(siteId);
        if (now === undefined || now.version < version) this.known.set(siteId, { version, edges });
        return edges;
      });
      this.scanning.set(key, pending);
      const done = () => this.scanning.delete(key);
      pending.then(done, done);
    }
    return pending;
  }

  /**
   * A commit moved the site from version `from` to `to` by adding events (`span`; null: it added
   * none, e.g. engagement alone): known edges of `from` become those of `to`, widened.
   */
  added(siteId: string, from: number, to: number, span: Span | null): void {
    const k = this.known.get(siteId);
    if (k === undefined || k.version !== from) return;
    const e = k.edges;
    const edges =
      span === null
        ? e
        : {
            firstMs: e.firstMs === null ? span.firstMs : Math.min(e.firstMs, span.firstMs),
            newestMs: e.newestMs === null ? span.lastMs : Math.max(e.newestMs, span.lastMs),
          };
    this.known.set(siteId, { version: to, edges });
  }

  /** A commit removed events of the site: its edges are scanned again when next asked. */
  removed(siteId: string): void {
    this.known.delete(siteId);
  }
}
