// `footfall import events FILE|- [--site S]` and `footfall import access-log FILE|- --site S
// [--format combined|common] [--forwarded-for]` (docs/product.md §2, §3). While `serve` runs on the
// same data dir the rows go through its admin socket; otherwise the store is opened here.
import type { Command } from 'commander';
import type { RunImportResult } from '../ingest/pipeline/run-import.js';
import type { LineFormat } from '../ingest/pipeline/import-lines.js';
import { commandConfig, withStoreOptions, type StoreOptions } from './options.js';
import { CliError, emit, fail } from './output.js';
import { EVENTS_FORMAT_HELP } from './import-help.js';
import { addImportUndo } from './lifecycle-commands.js';

type ImportOpts = StoreOptions & { site?: string; format?: string; geoipDb?: string; forwardedFor?: boolean };

const GEOIP_HELP = 'MMDB files locating client addresses, comma-separated, or off (FOOTFALL_GEOIP_DB, default the bundled DB-IP Lite)';

export function registerImport(program: Command): void {
  const imp = program.command('import').description('import analytics events (all or nothing per input)');

  withStoreOptions(
    imp
      .command('events')
      .description('import NDJSON events, one per line (FILE, or - for stdin; gzip is read as is)')
      .argument('<file>', 'NDJSON file (the fields are listed below), or - for stdin')
      .option('--site <id>', 'site of lines without site_id (lines naming another site are rejected)')
      .option('--geoip-db <files>', GEOIP_HELP)
      .addHelpText('after', EVENTS_FORMAT_HELP),
  ).action(async (file: string, opts: ImportOpts) => {
    await run(file, opts, { kind: 'events' });
  });

  withStoreOptions(
    imp
      .command('access-log')
      .description('import pageviews from an Apache/Nginx access log (FILE, or - for stdin; gzip is read as is)')
      .argument('<file>', 'access log file, or - for stdin')
      .option('--site <id>', 'site the log belongs to (required)')
      .option('--format <format>', 'combined|common (common also reads the common fields of combined lines)', 'combined')
      .option(
        '--forwarded-for',
        'the client is the left-most address of the last quoted field (nginx main\'s "$http_x_forwarded_for"); only for logs written behind your own proxy',
      )
      .option('--geoip-db <files>', GEOIP_HELP),
  ).action(async (file: string, opts: ImportOpts) => {
    if (opts.format !== 'combined' && opts.format !== 'common')
      return fail(!!opts.json, new CliError(`--format must be combined or common, got "${opts.format}"`));
    if (!opts.site) return fail(!!opts.json, new CliError('import access-log needs --site'));
    await run(file, opts, { kind: 'access-log', format: opts.format, forwardedFor: opts.forwardedFor === true });
  });

  addImportUndo(imp);
}

async function run(file: string, opts: ImportOpts, format: LineFormat): Promise<void> {
  const json = !!opts.json;
  try {
    const config = commandConfig(opts);
    // The import pipeline (parsers, geolocation, the stores) loads only for an import.
    const [{ openImportStores }, { runImport }] = await Promise.all([
      import('../container.js'),
      import('../ingest/pipeline/run-import.js'),
    ]);
    const result = await runImport({
      open: () => openImportStores(config),
      geoipDb: config.geoipDb,
      source: file,
      format,
      site: opts.site,
      progress: !json && process.stderr.isTTY ? process.stderr : null,
    });
    // Rejected lines are reported, not fatal: the rest imported (docs/product.md §2). An input none of whose
    // lines went in is a failure (wrong file, format or site); lines already stored are not.
    const nothing = nothingImported(result);
    const out = summaryJson(result);
    if (nothing) out.error = { code: 'NOTHING_IMPORTED', message: nothing };
    emit(json, out, summaryText(result));
    for (const w of result.warnings) process.stderr.write(`footfall: warning: ${w.message}\n`);
    if (nothing) {
      process.stderr.write(`footfall: ${nothing}\n`);
      process.exitCode = 1;
    }
  } catch (err) {
    fail(json, err);
  }
}

/** Why the import counts as failed, or null: lines were given and none was imported or already stored. */
export function nothingImported(r: RunImportResult): string | null {
  const given = r.imported + r.duplicates + r.rejected + r.skipped;
  if (given === 0 || r.imported + r.duplicates > 0) return null;
  const why: string[] = [];
  if (r.rejected) why.push(`${r.rejected} rejected (first: line ${r.errors[0]?.line}: ${r.errors[0]?.reason})`);
  if (r.skipped) why.push(`${r.skipped} skipped (${reasonsText(r.skipped_by_reason)})`);
  return `nothing imported: all ${given} lines were rejected or skipped: ${why.join('; ')}`;
}

/** Reasons by count, most first: `status 404: 3, static file: 2`. */
function byCount(reasons: Record<string, number>): [string, number][] {
  return Object.entries(reasons).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
}

function reasonsText(reasons: Record<string, number>): string {
  return byCount(reasons)
    .map(([r, n]) => `${r}: ${n}`)
    .join(', ');
}

function summaryJson(r: RunImportResult): Record<string, unknown> {
  return {
    imported: r.imported,
    rejected: r.rejected,
    skipped: r.skipped,
    skipped_by_reason: Object.fromEntries(byCount(r.skipped_by_reason)),
    duplicates: r.duplicates,
    lines: r.lines,
    errors: r.errors,
    errors_truncated: r.errors_truncated,
    warnings: r.warnings,
    via: r.via,
    import_id: r.importId,
  };
}

function summaryText(r: RunImportResult): string {
  const head =
    `imported ${r.imported}, rejected ${r.rejected}, skipped ${r.skipped}, duplicates ${r.duplicates} ` +
    `(${r.lines} lines${r.via === 'server' ? ', through the running server' : ''}); import id ${r.importId}`;
  const skips = r.skipped ? [`skipped by reason: ${reasonsText(r.skipped_by_reason)}`] : [];
  const errs = r.errors.map((e) => `  line ${e.line}: ${e.reason}`);
  if (r.errors_truncated) errs.push(`  … ${r.rejected - r.errors.length} more rejected lines`);
  return [head, ...skips, ...errs].join('\n');
}
