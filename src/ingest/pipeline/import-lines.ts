// The import pipeline (docs/product.md §2, §3, §8): lines -> parse -> validate -> normalize -> identity ->
// store, in chunks, as ONE logical import: nothing is visible until the whole input is read and
// committed; a bad line is rejected with its number and reason while the rest import.
import type { CatalogStore } from '../../ports/catalog-store.js';
import type { DayRef, EventRow, ImportResult } from '../../ports/event-store.js';
import { eventIdentity } from '../parse/identity.js';
import type { NormalizeSite } from '../parse/normalize.js';
import type { GeoLookup } from '../../ports/geo-lookup.js';
import { LineProcessor, type CatalogLookup, type LineFormat, type LineTally } from './line-processor.js';

export type { LineFormat } from './line-processor.js';

/** Where rows go: an ImportSession of the store, or the admin socket client that forwards to one. */
export interface ImportSink {
  append(rows: readonly EventRow[]): Promise<void>;
  /** rows already encoded with encodeEventRows (ImportSession.appendEncoded); used when present */
  appendEncoded?(ndjson: string, count: number): Promise<void>;
  commit(): Promise<ImportResult>;
  abort(): Promise<void>;
}

export interface ImportOptions {
  format: LineFormat;
  catalog: Pick<CatalogStore, 'getSite' | 'getTenant' | 'getOrCreateSecret'>;
  sink: ImportSink;
  /** `--site`: lines without site_id belong to it; required for access logs */
  defaultSiteId?: string;
  nowMs: number;
  /** rows per chunk handed to the sink */
  chunkSize?: number;
  /** errors kept in the summary (the counts are always complete) */
  maxErrors?: number;
  onProgress?: (p: { lines: number; rejected: number }) => void;
  /** geolocation of the lines' client addresses (ip); none when absent. A parallel import needs an MmdbGeoLookup. */
  geo?: GeoLookup | null;
}

export interface ImportError {
  line: number;
  reason: string;
}

export interface ImportSummary {
  imported: number;
  rejected: number;
  /** valid lines not stored by rule: actions the strict profile drops, access-log requests that are not pageviews */
  skipped: number;
  /**
   * `skipped` by reason. Access logs: `status NNN`, `method HEAD` (POST, …; `method other`),
   * `static file`, `well-known file`, `malformed request line`, `request target is not a path`;
   * any import: `strict profile` (an action the strict profile does not store).
   */
  skipped_by_reason: Record<string, number>;
  duplicates: number;
  lines: number;
  errors: ImportError[];
  /** true when errors holds only the first maxErrors of `rejected` */
  errors_truncated: boolean;
  /** the (site, UTC day) pairs that received new events, as the store reports them */
  days: DayRef[];
}

export const VISITOR_SALT_SECRET = 'visitor-salt';
export const DEFAULT_CHUNK_SIZE = 50_000;

/**
 * Runs one import over batches of lines. Line numbers are 1-based over the whole input, blank
 * lines included (they are ignored, not rejected). On any failure of the sink the import is
 * aborted and the error rethrown: nothing of it is stored.
 */
export async function importLines(batches: AsyncIterable<string[]>, opts: ImportOptions): Promise<ImportSummary> {
  const run = new ImportRun(opts);
  const secret = await opts.catalog.getOrCreateSecret(VISITOR_SALT_SECRET);
  const processor = new LineProcessor(
    { format: opts.format, defaultSiteId: opts.defaultSiteId, nowMs: opts.nowMs, secret },
    catalogLookup(opts.catalog),
    opts.geo ?? null,
  );
  return run.finish(async () => {
    let rows: EventRow[] = [];
    const emit = (row: EventRow) => {
      rows.push(row);
    };
    for await (const lines of batches) {
      let done = 0;
      // Lines are processed in slices so a chunk is handed over as soon as it is full.
      while (done < lines.length) {
        const slice =
          lines.length - done <= run.chunkSize ? (done === 0 ? lines : lines.slice(done)) : lines.slice(done, done + run.chunkSize);
        const tally = await processor.process(slice, emit, run.maxErrors);
        run.addLines(slice.length, tally);
        done += slice.length;
        if (rows.length >= run.chunkSize) {
          const full = rows;
          rows = [];
          await run.flush(() => opts.sink.append(full));
        }
      }
      opts.onProgress?.({ lines: run.summary.lines, rejected: run.summary.rejected });
    }
    if (rows.length) await run.flush(() => opts.sink.append(rows));
  });
}

/** The catalog as the line processor asks it. */
export function catalogLookup(catalog: ImportOptions['catalog']): CatalogLookup {
  return {
    site: async (id) => {
      const s = await catalog.getSite(id);
      return s
        ? ({
            id: s.id,
            hostnames: s.hostnames,
            collectionProfile: s.collectionProfile,
            profileEffectiveAt: s.profileEffectiveAt,
          } satisfies NormalizeSite)
        : null;
    },
    tenantSite: async (id) => (await catalog.getTenant(id))?.siteId ?? null,
  };
}

/**
 * The bookkeeping of one import, whichever way its lines are processed: the summary, and the
 * sink with one append in flight while the next chunk is prepared (DuckDB loads on its own
 * threads). On any failure the import is aborted and the error rethrown: nothing of it is stored.
 */
export class ImportRun {
  readonly summary: ImportSummary = {
    imported: 0,
    rejected: 0,
    skipped: 0,
    skipped_by_reason: {},
    duplicates: 0,
    lines: 0,
    errors: [],
    errors_truncated: false,
    days: [],
  };
  readonly chunkSize: number;
  readonly maxErrors: number;
  private pending: Promise<void> | null = null;

  constructor(private readonly opts: Pick<ImportOptions, 'sink' | 'chunkSize' | 'maxErrors'>) {
    this.chunkSize = opts.chunkSize ?? DEFAULT_CHUNK_SIZE;
    this.maxErrors = opts.maxErrors ?? 100;
  }

  /** Counts `lines` more lines and their tally; error line numbers are relative to them. */
  addLines(lines: number, tally: LineTally): void {
    const s = this.summary;
    for (const e of tally.errors) {
      if (s.errors.length < this.maxErrors) s.errors.push({ line: s.lines + e.line, reason: e.reason });
    }
    if (s.errors.length < s.rejected + tally.rejected) s.errors_truncated = true;
    s.rejected += tally.rejected;
    s.skipped += tally.skipped;
    for (const [reason, n] of Object.entries(tally.skipped_by_reason)) s.skipped_by_reason[reason] = (s.skipped_by_reason[reason] ?? 0) + n;
    s.lines += lines;
  }

  /** Waits for the append in flight, then starts this one. */
  async flush(append: () => Promise<void>): Promise<void> {
    if (this.pending) await this.pending;
    this.pending = append();
  }

  /** Runs the producer, drains the last append, and commits; aborts on any failure. */
  async finish(produce: () => Promise<void>): Promise<ImportSummary> {
    try {
      await produce();
      if (this.pending) await this.pending;
    } catch (err) {
      if (this.pending) await this.pending.catch(() => undefined);
      await this.opts.sink.abort().catch(() => undefined);
      throw err;
    }
    const result = await this.opts.sink.commit();
    this.summary.imported = result.imported;
    this.summary.duplicates = result.duplicates;
    this.summary.days = result.days;
    return this.summary;
  }
}

/** The identity of the n-th identical copy, as identity.ts defines it (for ImportSession.reidentify). */
export const reidentify = (row: EventRow, occurrence: number): string => eventIdentity(row, occurrence);
