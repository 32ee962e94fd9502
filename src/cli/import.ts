// `footfall import events FILE|- [--site S]` and `footfall import access-log FILE|- --site S
// [--format combined|common]` (DESIGN 2 and 3). While `serve` runs on the same data dir the rows
// go through its admin socket; otherwise the store is opened here.
import type { Command } from 'commander';
import { ConfigError } from '../config/config.js';
import { runImport, type RunImportResult } from '../ingest/pipeline/run-import.js';
import type { LineFormat } from '../ingest/pipeline/import-lines.js';
import { configFrom, withStoreOptions, type StoreOptions } from './options.js';
import { CliError, emit, fail } from './output.js';

type ImportOpts = StoreOptions & { site?: string; format?: string };

export function registerImport(program: Command): void {
  const imp = program.command('import').description('import analytics events (all or nothing per input)');

  withStoreOptions(
    imp
      .command('events')
      .description('import NDJSON events, one per line (FILE, or - for stdin)')
      .argument('<file>', 'NDJSON file, or - for stdin')
      .option('--site <id>', 'site of lines without site_id (lines naming another site are rejected)'),
  ).action(async (file: string, opts: ImportOpts) => {
    await run(file, opts, { kind: 'events' });
  });

  withStoreOptions(
    imp
      .command('access-log')
      .description('import pageviews from an Apache/Nginx access log (FILE, or - for stdin)')
      .argument('<file>', 'access log file, or - for stdin')
      .option('--site <id>', 'site the log belongs to (required)')
      .option('--format <format>', 'combined|common', 'combined'),
  ).action(async (file: string, opts: ImportOpts) => {
    if (opts.format !== 'combined' && opts.format !== 'common')
      return fail(!!opts.json, new CliError(`--format must be combined or common, got "${opts.format}"`));
    if (!opts.site) return fail(!!opts.json, new CliError('import access-log needs --site'));
    await run(file, opts, { kind: 'access-log', format: opts.format });
  });
}

async function run(file: string, opts: ImportOpts, format: LineFormat): Promise<void> {
  const json = !!opts.json;
  try {
    let config;
    try {
      config = configFrom(opts);
    } catch (err) {
      if (err instanceof ConfigError) throw new CliError(err.message, 'INVALID_CONFIG', 2);
      throw err;
    }
    const result = await runImport({
      config,
      source: file,
      format,
      site: opts.site,
      progress: !json && process.stderr.isTTY ? process.stderr : null,
    });
    emit(json, summaryJson(result), summaryText(result));
    // Rejected lines are reported, not fatal: the rest imported (DESIGN 3).
  } catch (err) {
    fail(json, err);
  }
}

function summaryJson(r: RunImportResult): Record<string, unknown> {
  return {
    imported: r.imported,
    rejected: r.rejected,
    skipped: r.skipped,
    duplicates: r.duplicates,
    lines: r.lines,
    errors: r.errors,
    errors_truncated: r.errors_truncated,
    via: r.via,
  };
}

function summaryText(r: RunImportResult): string {
  const head =
    `imported ${r.imported}, rejected ${r.rejected}, skipped ${r.skipped}, duplicates ${r.duplicates} ` +
    `(${r.lines} lines${r.via === 'server' ? ', through the running server' : ''})`;
  const errs = r.errors.map((e) => `  line ${e.line}: ${e.reason}`);
  if (r.errors_truncated) errs.push(`  … ${r.rejected - r.errors.length} more rejected lines`);
  return [head, ...errs].join('\n');
}
