// One `footfall import …` run: the input (import-input.ts: gzip or plain, checked from its first
// lines), the stores (the catalog for sites and the salt, a target: server socket or store, both
// opened by the caller's `open`, from the composition root), the pipeline and the progress bar;
// everything closed on the way out.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { Clock } from '../../domain/clock.js';
import { systemClock } from '../../domain/clock.js';
import { newId } from '../../domain/tokens.js';
import type { PeopleStore } from '../../ports/people-store.js';
import type { CatalogStore } from '../../ports/catalog-store.js';
import { importLines, type ImportOptions, type ImportSummary, type LineFormat } from './import-lines.js';
import { defaultParseWorkers, importChunksParallel } from './import-parallel.js';
import type { ImportTarget } from './import-target.js';
import { readLineBatches, readLineChunks } from './read-lines.js';
import { createProgressBar, noProgress, type ProgressBar } from './progress-bar.js';
import { openGeoLookup } from '../parse/mmdb-geo-lookup.js';
import { retentionWarnings, type ImportWarning } from './retention-warnings.js';
import { ImportInputError, openImportInput } from './import-input.js';

export { ImportInputError };

/** What an import reads and writes through; close() closes both. */
export interface ImportStores {
  catalog: CatalogStore;
  /** the control plane's people (the demo's owner), when the stores came from a whole control plane */
  people?: PeopleStore;
  target: ImportTarget;
  close(): Promise<void>;
}

export interface RunImportOptions {
  /** opens the stores, once the input is known to be readable (src/container.ts openImportStores) */
  open: () => Promise<ImportStores>;
  /** Config.geoipDb (undefined = the bundled database, 'off' = no geolocation) */
  geoipDb?: string;
  /** a file path, or '-' for stdin */
  source: string;
  format: LineFormat;
  site?: string;
  /** draw a progress bar on this stream (a TTY's stderr), or none */
  progress?: NodeJS.WriteStream | null;
  stdin?: Readable;
  clock?: Clock;
  chunkSize?: number;
  /** parse worker threads; 0 parses in this thread (default: one per core, in-thread for small files) */
  workers?: number;
}

/** Below this a file is parsed in this thread: starting workers costs more than they save. */
const PARALLEL_MIN_BYTES = 8 << 20;

/** `importId`: the id the import's events remember (`imp_…`), for undoing it (EventStore.undoImport). */
export type RunImportResult = ImportSummary & { via: 'server' | 'store'; warnings: ImportWarning[]; importId: string };

export async function runImport(opts: RunImportOptions): Promise<RunImportResult> {
  const fromStdin = opts.source === '-';
  let totalBytes: number | null = null;
  let fd: number | undefined;
  if (!fromStdin) {
    try {
      fd = fs.openSync(opts.source, 'r');
    } catch (err) {
      throw new ImportInputError(`cannot read ${opts.source}: ${unreadable(err)}`);
    }
    const st = fs.fstatSync(fd);
    if (!st.isFile()) {
      fs.closeSync(fd);
      throw new ImportInputError(`${opts.source} is not a file`);
    }
    totalBytes = st.size;
  }
  const raw = fd !== undefined ? fs.createReadStream('', { fd, highWaterMark: 1 << 20 }) : (opts.stdin ?? process.stdin);
  // Bytes are counted as read (compressed ones for a gzip file); the bar is drawn once the stores are open.
  const progress = { bar: noProgress as ProgressBar };
  try {
    if (opts.format.kind === 'access-log' && !opts.site) throw new ImportInputError('import access-log needs --site');
    // Read before anything is opened: an input of the other format, or not text, stops here.
    const input = await openImportInput(raw, {
      source: opts.source,
      format: opts.format,
      site: opts.site,
      onBytes: (bytes) => progress.bar.update({ bytes }),
    });
    // Opened before the stores: a bad FOOTFALL_GEOIP_DB stops the import before it starts.
    const geo = openGeoLookup(opts.geoipDb);
    return await importInto(
      await opts.open(),
      input,
      geo,
      opts,
      () => (progress.bar = opts.progress ? createProgressBar(opts.progress, totalBytes) : noProgress),
      totalBytes,
    );
  } finally {
    raw.destroy();
  }
}

async function importInto(
  stores: ImportStores,
  input: Readable,
  geo: ReturnType<typeof openGeoLookup>,
  opts: RunImportOptions,
  showBar: () => ProgressBar,
  totalBytes: number | null,
): Promise<RunImportResult> {
  try {
    const { catalog, target } = stores;
    if (opts.site !== undefined && !(await catalog.getSite(opts.site))) throw new ImportInputError(`unknown site ${opts.site}`);
    const bar = showBar();
    const importId = newId('imp', randomBytes);
    const sink = await target.begin({ importId });
    const nowMs = (opts.clock ?? systemClock).now().getTime();
    const importOpts: ImportOptions = {
      format: opts.format,
      catalog,
      sink,
      defaultSiteId: opts.site,
      nowMs,
      chunkSize: opts.chunkSize,
      onProgress: (p) => bar.update(p),
      geo,
    };
    const workers = opts.workers ?? (totalBytes !== null && totalBytes < PARALLEL_MIN_BYTES ? 0 : defaultParseWorkers());
    const appendEncoded = sink.appendEncoded?.bind(sink);
    const summary =
      workers > 0 && appendEncoded
        ? await importChunksParallel(readLineChunks(input), { ...importOpts, sink: { ...bindSink(sink), appendEncoded }, workers })
        : await importLines(readLineBatches(input), importOpts);
    bar.done();
    return { ...summary, via: target.via, warnings: await retentionWarnings(catalog, summary.days, nowMs), importId };
  } finally {
    await stores.close();
  }
}

function unreadable(err: unknown): string {
  switch ((err as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied (give the user running footfall read access, or pipe it in: footfall import … - < FILE)';
    case 'EISDIR':
      return 'it is a directory';
    default:
      return (err as Error).message;
  }
}

function bindSink(sink: ImportOptions['sink']): ImportOptions['sink'] {
  return { append: (rows) => sink.append(rows), commit: () => sink.commit(), abort: () => sink.abort() };
}
