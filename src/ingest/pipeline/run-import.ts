// One `footfall import …` run: the stores (the catalog for sites and the salt, a target: server
// socket or store, both opened by the caller's `open`, from the composition root), the input stream,
// the pipeline and the progress bar; everything closed on the way out.
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { Clock } from '../../domain/clock.js';
import { systemClock } from '../../domain/clock.js';
import type { PeopleStore } from '../../ports/people-store.js';
import type { CatalogStore } from '../../ports/catalog-store.js';
import { importLines, type ImportOptions, type ImportSummary, type LineFormat } from './import-lines.js';
import { defaultParseWorkers, importChunksParallel } from './import-parallel.js';
import type { ImportTarget } from './import-target.js';
import { readLineBatches, readLineChunks } from './read-lines.js';
import { createProgressBar, noProgress, type ProgressBar } from './progress-bar.js';
import { openGeoLookup } from '../parse/mmdb-geo-lookup.js';
import { retentionWarnings, type ImportWarning } from './retention-warnings.js';

export class ImportInputError extends Error {
  readonly code = 'INVALID_ARGUMENTS';
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = 'ImportInputError';
  }
}

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

export type RunImportResult = ImportSummary & { via: 'server' | 'store'; warnings: ImportWarning[] };

export async function runImport(opts: RunImportOptions): Promise<RunImportResult> {
  const fromStdin = opts.source === '-';
  let totalBytes: number | null = null;
  if (!fromStdin) {
    let st: fs.Stats;
    try {
      st = fs.statSync(opts.source);
    } catch {
      throw new ImportInputError(`cannot read ${opts.source}: no such file`);
    }
    if (!st.isFile()) throw new ImportInputError(`${opts.source} is not a file`);
    totalBytes = st.size;
  }
  if (opts.format.kind === 'access-log' && !opts.site) throw new ImportInputError('import access-log needs --site');
  // Opened before anything else: a bad FOOTFALL_GEOIP_DB stops the import before it starts.
  const geo = openGeoLookup(opts.geoipDb);

  const stores = await opts.open();
  try {
    const { catalog, target } = stores;
    if (opts.site !== undefined && !(await catalog.getSite(opts.site))) throw new ImportInputError(`unknown site ${opts.site}`);
    const bar: ProgressBar = opts.progress ? createProgressBar(opts.progress, totalBytes) : noProgress;
    const input = fromStdin ? (opts.stdin ?? process.stdin) : fs.createReadStream(opts.source, { highWaterMark: 1 << 20 });
    const sink = await target.begin();
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
    const onBytes = (bytes: number) => bar.update({ bytes });
    const appendEncoded = sink.appendEncoded?.bind(sink);
    const summary = workers > 0 && appendEncoded
      ? await importChunksParallel(readLineChunks(input, onBytes), { ...importOpts, sink: { ...bindSink(sink), appendEncoded }, workers })
      : await importLines(readLineBatches(input, onBytes), importOpts);
    bar.done();
    return { ...summary, via: target.via, warnings: await retentionWarnings(catalog, summary.days, nowMs) };
  } finally {
    await stores.close();
  }
}

function bindSink(sink: ImportOptions['sink']): ImportOptions['sink'] {
  return { append: (rows) => sink.append(rows), commit: () => sink.commit(), abort: () => sink.abort() };
}
