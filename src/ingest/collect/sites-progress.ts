// Per site: when this process last accepted one of its events, and the spool position just past the
// newest such record (pending while the loader has not passed it). What freshness reports (docs/product.md §9):
// the lag between the newest accepted event and the newest readable one. Kept in a small file of
// the spool dir, so that after a restart a site that collects live is still known to.
import fs from 'node:fs';
import path from 'node:path';
import type { CollectionProgress } from '../../ports/event-collector.js';

interface SiteEntry {
  newestAcceptedMs: number;
  /** position past the site's newest spooled record; 0 when all of them were loaded before a restart */
  lastPosition: number;
  /** when the oldest record not yet loaded arrived (meaningful while lastPosition is past the loader) */
  waitingSinceMs: number;
}

const FILE = 'sites.json';

export class SitesProgress {
  private readonly sites = new Map<string, SiteEntry>();
  private dirty = false;
  private saving: Promise<void> | null = null;

  private constructor(private readonly file: string | null) {}

  /** Reads what an earlier run of the spool in `dir` knew (nothing when `dir` is null or the file is unreadable). */
  static async open(dir: string | null): Promise<SitesProgress> {
    const p = new SitesProgress(dir === null ? null : path.join(dir, FILE));
    if (p.file) {
      try {
        const saved = JSON.parse(await fs.promises.readFile(p.file, 'utf8')) as Record<string, unknown>;
        for (const [site, ms] of Object.entries(saved))
          if (typeof ms === 'number' && Number.isFinite(ms))
            p.sites.set(site, { newestAcceptedMs: ms, lastPosition: 0, waitingSinceMs: ms });
      } catch {
        // first start, or a file cut short: it only informs freshness
      }
    }
    return p;
  }

  /** A record of the site, ending at `end`, is spooled; `loadedUpTo` is where the loader stands. */
  accepted(siteId: string, tsMs: number, end: number, loadedUpTo: number): void {
    const e = this.sites.get(siteId);
    if (e) {
      if (e.lastPosition <= loadedUpTo) e.waitingSinceMs = tsMs;
      if (tsMs > e.newestAcceptedMs) e.newestAcceptedMs = tsMs;
      if (end > e.lastPosition) e.lastPosition = end;
    } else this.sites.set(siteId, { newestAcceptedMs: tsMs, lastPosition: end, waitingSinceMs: tsMs });
    this.dirty = true;
  }

  of(siteId: string, loadedUpTo: number): CollectionProgress | null {
    const e = this.sites.get(siteId);
    if (!e) return null;
    const pending = e.lastPosition > loadedUpTo;
    return { newestAcceptedMs: e.newestAcceptedMs, pending, waitingSinceMs: pending ? e.waitingSinceMs : null };
  }

  /** Writes the file when something changed (atomically: a new file renamed over the old one). */
  save(): Promise<void> {
    if (!this.file || !this.dirty) return this.saving ?? Promise.resolve();
    if (this.saving) return this.saving;
    this.dirty = false;
    const file = this.file;
    const body = JSON.stringify(Object.fromEntries([...this.sites].map(([site, e]) => [site, e.newestAcceptedMs])));
    this.saving = (async () => {
      const tmp = `${file}.${process.pid}.tmp`;
      await fs.promises.writeFile(tmp, body);
      await fs.promises.rename(tmp, file);
    })()
      .catch(() => {
        this.dirty = true;
      })
      .finally(() => {
        this.saving = null;
      });
    return this.saving;
  }
}
