// `footfall stats [--against FILE]`: what the stores hold (rows per control-plane table, rows per table
// of the events store on each server, stored days and events per site and month, the usage counts), or,
// with --against, whether they still hold what an earlier `footfall stats --json` recorded, e.g. when a
// backup was made: a restored stack is checked so (README, "Backups and upgrades").
import fs from 'node:fs';
import type { Command } from 'commander';
import { commandConfig, withStoreOptions } from './options.js';
import { CliError, emit, fail } from './output.js';
import { actionParams, asCliError } from './catalog-command-kit.js';

export function registerStats(program: Command): void {
  withStoreOptions(
    program
      .command('stats')
      .description('what the stores hold, counted; --against FILE: whether they hold what an earlier `footfall stats --json` printed')
      .option(
        '--against <file>',
        'the output of an earlier `footfall stats --json` (e.g. taken with a backup): exit 1 naming each difference',
      ),
  ).action(async (...params: unknown[]) => {
    const { opts, json } = actionParams(params);
    try {
      const { compareStats, isStoreStats } = await import('../services/lifecycle/store-stats.js');
      let then: unknown;
      if (opts.against !== undefined) {
        const file = String(opts.against);
        try {
          then = JSON.parse(fs.readFileSync(file, 'utf8'));
        } catch (err) {
          throw new CliError(
            `--against ${file}: cannot read it as JSON (${(err as Error).message}); give the file \`footfall stats --json\` wrote`,
          );
        }
        if (!isStoreStats(then)) throw new CliError(`--against ${file}: not the output of \`footfall stats --json\``);
      }
      const config = commandConfig(opts);
      const [{ openLifecycleStores }, { collectStats }, { FOOTFALL_VERSION }] = await Promise.all([
        import('../container.js'),
        import('../services/lifecycle/store-stats.js'),
        import('../domain/release.js'),
      ]);
      const opened = await openLifecycleStores(config);
      let now: Awaited<ReturnType<typeof collectStats>>;
      try {
        now = await collectStats({
          version: FOOTFALL_VERSION,
          catalog: opened.control.catalog,
          store: opened.store,
          controlRows: () => opened.control.tableRows(),
          tableRows: opened.tableRows,
        });
      } finally {
        await opened.close();
      }
      if (!isStoreStats(then)) {
        const sites = Object.values(now.sites);
        const text = [
          `control plane: ${Object.entries(now.control)
            .map(([t, n]) => `${t} ${n}`)
            .join(', ')}`,
          ...(now.event_tables
            ? Object.entries(now.event_tables).map(
                ([server, t]) =>
                  `events store, ${server}: ${Object.entries(t)
                    .map(([k, n]) => `${k} ${n}`)
                    .join(', ')}`,
              )
            : ['events store: owned by the running server (its tables are not counted; stop it to count them)']),
          `${sites.length} sites, ${sites.reduce((n, s) => n + s.events, 0)} stored events`,
          ...Object.entries(now.sites).map(
            ([id, s]) => `  ${id}  ${s.events} events on ${s.days} days${s.days ? ` (${s.first_day} to ${s.last_day})` : ''}`,
          ),
        ].join('\n');
        emit(json, { ...now }, text);
        return;
      }
      const differences = compareStats(then, now);
      if (differences.length)
        throw new CliError(
          `the stores differ from ${String(opts.against)} in ${differences.length} place${differences.length === 1 ? '' : 's'}: ${differences.slice(0, 20).join('; ')}${differences.length > 20 ? '; …' : ''}`,
          'STATS_DIFFER',
          1,
          { differences },
        );
      emit(json, { matches: true, against: String(opts.against), ...now }, `the stores hold what ${String(opts.against)} recorded`);
    } catch (err) {
      fail(json, err instanceof CliError ? err : asCliError(err));
    }
  });
}
