// The data lifecycle's commands (docs/product.md §10): `footfall purge [--dry-run]`, `footfall usage --workspace W`,
// `footfall site delete`, `footfall workspace delete` and `footfall import undo`. Registration loads only
// commander: each action imports the stores and use-cases it runs.
import type { Command } from 'commander';
import type { LifecycleStores } from '../container.js';
import type { LifecycleDeps } from '../services/lifecycle/lifecycle-deps.js';
import type { RemovedData } from '../ports/event-store.js';
import { commandConfig, withStoreOptions } from './options.js';
import { CliError, emit, fail } from './output.js';
import { actionParams, asCliError, type Opts, type Result } from './catalog-command-kit.js';
import { purgeJson, purgeText } from './purge-output.js';

/** Opens the control plane and the store's lifecycle side around one command. */
function runLifecycle(
  fn: (deps: LifecycleDeps & { opened: LifecycleStores }, opts: Opts, args: string[]) => Promise<Result & { exitCode?: number }>,
) {
  return async (...params: unknown[]): Promise<void> => {
    const { opts, args, json } = actionParams(params);
    try {
      const config = commandConfig(opts);
      const { openLifecycleStores } = await import('../container.js');
      const { systemClock } = await import('../domain/clock.js');
      const opened = await openLifecycleStores(config);
      try {
        const c = opened.control;
        const out = await fn({ catalog: c.catalog, lifecycle: c.lifecycle, store: opened.store, clock: systemClock, opened }, opts, args);
        emit(json, out.json, out.text);
        if (out.exitCode) process.exitCode = out.exitCode;
      } finally {
        await opened.close();
      }
    } catch (err) {
      fail(json, asCliError(err));
    }
  };
}

/** Deleting changes nothing without --yes: the message says what to add. */
function confirmed(opts: Opts, command: string): void {
  if (opts.yes !== true)
    throw new CliError(`${command} deletes for good: add --yes to confirm (nothing was changed)`, 'CONFIRMATION_REQUIRED', 2);
}

/** Checks --yes before anything opens. */
function needYes(command: string, action: ReturnType<typeof runLifecycle>) {
  return async (...params: unknown[]): Promise<void> => {
    const { opts } = actionParams(params);
    try {
      confirmed(opts, command);
    } catch (err) {
      return fail(opts.json === true, err);
    }
    await action(...params);
  };
}

function removedText(r: RemovedData): string {
  if (r.days === 0) return 'no stored events';
  return `${r.events} events on ${r.days} day${r.days === 1 ? '' : 's'} (${r.firstDay} to ${r.lastDay})`;
}

const removedJson = (r: RemovedData) => ({
  days: r.days,
  first_day: r.firstDay,
  last_day: r.lastDay,
  events: r.events,
  by_month: r.byMonth,
});

export function registerPurge(program: Command): void {
  withStoreOptions(
    program
      .command('purge')
      .description(
        "delete every site's stored days older than its plan's technical retention (free 3, starter 14, pro and enterprise 25 months)",
      )
      .option('--dry-run', 'print what would go, per site and month, and change nothing'),
  ).action(
    runLifecycle(async (deps, opts) => {
      const { purgeAll, failedPurges } = await import('../services/lifecycle/purge.js');
      const run = await purgeAll(deps, { dryRun: opts.dryRun === true });
      const failed = failedPurges(run).length > 0 || run.deletionError !== undefined;
      return { json: purgeJson(run), text: purgeText(run), exitCode: failed ? 1 : 0 };
    }),
  );
}

export function registerUsage(program: Command): void {
  withStoreOptions(
    program
      .command('usage')
      .description("a workspace's events of a UTC month against its plan's included events, and its API units")
      .option('--workspace <id>', 'workspace id')
      .option('--period <YYYY-MM>', 'the UTC month (default: the current one)'),
  ).action(
    runLifecycle(async (deps, opts) => {
      if (typeof opts.workspace !== 'string') throw new CliError('missing --workspace <id>');
      if (opts.period !== undefined && !/^\d{4}-(0[1-9]|1[0-2])$/.test(String(opts.period)))
        throw new CliError(`--period must be a month written YYYY-MM, got "${String(opts.period)}"`);
      const { eventUsage } = await import('../services/lifecycle/event-usage.js');
      const u = await eventUsage({ ...deps, ledger: deps.opened.control.ledger }, opts.workspace, opts.period as string | undefined);
      const included = u.events_included === null ? 'unlimited' : String(u.events_included);
      const text = [
        `workspace ${u.workspace_id} (${u.plan}), ${u.period}`,
        `events ${u.events_used} of ${included} included${u.events_overage ? `, overage ${u.events_overage} (a preview: collection goes on)` : ''}`,
        `API units ${u.units_used} of ${u.units_included} included${u.units_overage ? `, overage ${u.units_overage}` : ''}`,
        ...u.sites.map((s) => `  ${s.site_id}  ${s.events_used} events  "${s.name}"`),
      ].join('\n');
      return { json: { ...u }, text };
    }),
  );
}

/** `<group> delete ID --yes`: refused without --yes before anything opens. */
function addDelete(parent: Command, what: 'site' | 'workspace', description: string, fn: Parameters<typeof runLifecycle>[0]): void {
  withStoreOptions(parent.command('delete').description(description).argument(`<${what}-id>`))
    .option('--yes', 'confirm: the deletion cannot be undone')
    .action(needYes(`${what} delete`, runLifecycle(fn)));
}

export function addSiteDelete(site: Command): void {
  addDelete(
    site,
    'site',
    'delete a site, its tenants, goals and every stored event, session and rollup of it',
    async (deps, _opts, [id]) => {
      const { deleteSite } = await import('../services/lifecycle/deletion.js');
      const d = await deleteSite(deps, id);
      return {
        json: { deleted: { site_id: d.siteId, workspace_id: d.workspaceId, removed: removedJson(d.removed) } },
        text: `Deleted site ${d.siteId}: ${removedText(d.removed)} removed; its id now answers like an unknown one and its hostnames are free.`,
      };
    },
  );
}

export function addWorkspaceDelete(workspace: Command): void {
  addDelete(
    workspace,
    'workspace',
    'delete a workspace, its members, tokens, sites and everything stored of them',
    async (deps, _opts, [id]) => {
      const { deleteWorkspace } = await import('../services/lifecycle/deletion.js');
      const done = await deleteWorkspace(deps, id);
      return {
        json: { deleted: { workspace_id: id, sites: done.map((d) => ({ site_id: d.siteId, removed: removedJson(d.removed) })) } },
        text: [
          `Deleted workspace ${id} and ${done.length} site(s).`,
          ...done.map((d) => `  ${d.siteId}: ${removedText(d.removed)} removed`),
        ].join('\n'),
      };
    },
  );
}

export function addImportUndo(imp: Command): void {
  withStoreOptions(
    imp.command('undo').description('remove the events an import stored (its id is in the import summary)').argument('<import-id>'),
  ).action(
    runLifecycle(async (deps, _opts, [id]) => {
      const u = await deps.store.undoImport(id);
      return {
        json: { undone: { import_id: u.importId, events: u.events, days: u.days.length, by_site_month: u.bySiteMonth } },
        text:
          `Undid import ${u.importId}: ${u.events} events removed` +
          (u.days.length ? `, ${u.days.length} (site, day)s rebuilt` : ' (already undone, or it stored none)') +
          u.bySiteMonth.map((r) => `\n  ${r.site_id} ${r.month}: ${r.events}`).join(''),
      };
    }),
  );
}
