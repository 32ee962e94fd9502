// `footfall workspace create|list|update`.
import type { Command } from 'commander';
import type { CatalogStore } from '../ports/catalog-store.js';
import { PLAN_IDS } from '../domain/plans.js';
import { withStoreOptions } from './options.js';
import { Args, group, run, type Opts, type Result } from './catalog-command-kit.js';
import { lines, workspaceJson } from './catalog-json.js';
import { addWorkspaceDelete } from './lifecycle-commands.js';

export function registerWorkspaceCommands(program: Command): void {
  const workspace = group(program, 'workspace', 'manage workspaces');
  withStoreOptions(workspace.command('create').description('create a workspace'))
    .option('--name <name>', 'workspace name')
    .option('--plan <plan>', PLAN_IDS.join('|'))
    .option('--api-policy <json>', 'enterprise only: JSON object of api policy overrides')
    .action(run(createWorkspace));
  withStoreOptions(workspace.command('list').description('list every workspace')).action(run(listWorkspaces));
  withStoreOptions(workspace.command('update').description("change a workspace's name, plan or api policy").argument('<workspace-id>'))
    .option('--name <name>', 'new name')
    .option('--plan <plan>', `${PLAN_IDS.join('|')} (leaving enterprise drops the api policy overrides)`)
    .option('--api-policy <json>', 'enterprise only: replaces the overrides whole ({} clears them)')
    .action(run(updateWorkspace));
  addWorkspaceDelete(workspace);
}

async function createWorkspace(catalog: CatalogStore, opts: Opts): Promise<Result> {
  const a = new Args(opts);
  const name = a.need('name', '--name <name>');
  const plan = a.oneOf('--plan', a.need('plan', `--plan ${PLAN_IDS.join('|')}`), PLAN_IDS);
  const apiPolicy = a.apiPolicy();
  if (apiPolicy !== undefined && plan && plan !== 'enterprise') a.problem('--api-policy applies to --plan enterprise only');
  a.done();
  const ws = await catalog.createWorkspace({ name, plan: plan!, apiPolicy });
  return { json: { workspace_id: ws.id }, text: `Created workspace ${ws.id} "${ws.name}" on plan ${ws.plan}.` };
}

async function listWorkspaces(catalog: CatalogStore): Promise<Result> {
  const all = await catalog.listWorkspaces();
  return {
    json: { workspaces: all.map(workspaceJson) },
    text: lines(
      all,
      'No workspaces.',
      (w) => `${w.id}  ${w.plan}  "${w.name}"${Object.keys(w.apiPolicy).length ? `  api policy ${JSON.stringify(w.apiPolicy)}` : ''}`,
    ),
  };
}

async function updateWorkspace(catalog: CatalogStore, opts: Opts, [id]: string[]): Promise<Result> {
  const a = new Args(opts);
  const name = a.optional('name');
  const plan = a.oneOf('--plan', a.optional('plan'), PLAN_IDS);
  const apiPolicy = a.apiPolicy();
  if (name === undefined && plan === undefined && apiPolicy === undefined)
    a.problem('nothing to change: give --name, --plan or --api-policy');
  a.done();
  const before = await catalog.getWorkspace(id);
  const ws = await catalog.updateWorkspace(id, { name, plan, apiPolicy });
  const dropped = before && Object.keys(before.apiPolicy).length > 0 && Object.keys(ws.apiPolicy).length === 0 && apiPolicy === undefined;
  return {
    json: { workspace: workspaceJson(ws) },
    text:
      `Updated workspace ${ws.id} "${ws.name}": plan ${ws.plan}` +
      (Object.keys(ws.apiPolicy).length ? `, api policy ${JSON.stringify(ws.apiPolicy)}` : '') +
      (dropped ? ' (its enterprise api policy overrides were dropped)' : '') +
      '. The next API request sees it.',
  };
}
