// `footfall goal create|list|update|delete`.
import type { Command } from 'commander';
import { CatalogError, GOAL_INTENTS, type CatalogStore, type GoalFilters, type GoalPatch, type GoalType } from '../ports/catalog-store.js';
import { withStoreOptions } from './options.js';
import { Args, group, listParent, run, type Opts, type Result } from './catalog-command-kit.js';
import { goalJson, lines } from './catalog-json.js';

const TYPES: readonly GoalType[] = ['PAGEVIEW_MATCH', 'EVENT_MATCH'];
const FILTER_OPTIONS = [
  ['action_id', 'actionId', '--action-id <id>'],
  ['action_target_host', 'actionTargetHost', '--action-target-host <host>'],
  ['form_id', 'formId', '--form-id <id>'],
  ['form_action_path', 'formActionPath', '--form-action-path <path>'],
] as const;

function withFilterOptions(cmd: Command, note: string): Command {
  for (const [, , flag] of FILTER_OPTIONS) cmd.option(flag, `EVENT_MATCH filter${note}`);
  return cmd;
}

export function registerGoalCommands(program: Command): void {
  const goal = group(program, 'goal', 'manage goals of a site');
  withFilterOptions(
    withStoreOptions(goal.command('create').description('create a goal of a site'))
      .option('--site <id>', 'site id')
      .option('--name <name>', 'goal name')
      .option('--type <type>', TYPES.join('|'))
      .option('--intent <intent>', GOAL_INTENTS.join('|'))
      .option('--pattern <pattern>', 'page path pattern (* = any run of characters) or event name'),
    '',
  ).action(run(createGoal));
  withStoreOptions(goal.command('list').description('list the goals of a site')).option('--site <id>', 'site id').action(run(listGoals));
  withFilterOptions(
    withStoreOptions(goal.command('update').description('change a goal (checked like a new one)').argument('<goal-id>'))
      .option('--name <name>', 'goal name')
      .option('--type <type>', TYPES.join('|'))
      .option('--intent <intent>', GOAL_INTENTS.join('|'))
      .option('--pattern <pattern>', 'page path pattern or event name')
      .option('--clear-filters', 'remove every filter (e.g. when the type becomes PAGEVIEW_MATCH)'),
    ' (any filter option replaces all the filters)',
  ).action(run(updateGoal));
  withStoreOptions(goal.command('delete').description('delete a goal; reports stop counting it').argument('<goal-id>')).action(
    run(deleteGoal),
  );
}

/** The filter options given, or undefined when none is. */
function filtersOf(opts: Opts): GoalFilters | undefined {
  const filters: GoalFilters = {};
  for (const [key, opt] of FILTER_OPTIONS) if (opts[opt] !== undefined) filters[key] = String(opts[opt]);
  return Object.keys(filters).length ? filters : undefined;
}

async function createGoal(catalog: CatalogStore, opts: Opts): Promise<Result> {
  const a = new Args(opts);
  const siteId = a.need('site', '--site <id>');
  const name = a.need('name', '--name <name>');
  const type = a.need('type', `--type ${TYPES.join('|')}`);
  const intent = a.need('intent', '--intent <intent>');
  const pattern = a.need('pattern', '--pattern <pattern>');
  a.done();
  // type and intent are checked by the store, with the same messages as over any other path
  const g = await catalog.createGoal({
    siteId,
    name,
    type: type as GoalType,
    intent: intent as 'custom',
    pattern,
    filters: filtersOf(opts) ?? {},
  });
  return { json: { goal_id: g.id }, text: `Created goal ${g.id} "${g.name}" (${g.type} ${g.pattern}) on site ${g.siteId}.` };
}

async function listGoals(catalog: CatalogStore, opts: Opts): Promise<Result> {
  const goals = await catalog.listGoals(await listParent(catalog, opts, 'site'));
  return {
    json: { goals: goals.map(goalJson) },
    text: lines(
      goals,
      'No goals.',
      (g) =>
        `${g.id}  ${g.type}  ${g.intent}  "${g.name}"  ${g.pattern}${Object.keys(g.filters).length ? `  ${JSON.stringify(g.filters)}` : ''}`,
    ),
  };
}

async function updateGoal(catalog: CatalogStore, opts: Opts, [id]: string[]): Promise<Result> {
  const a = new Args(opts);
  const filters = filtersOf(opts);
  if (filters && opts.clearFilters) a.problem('--clear-filters and a filter option contradict each other');
  const patch: GoalPatch = {
    name: a.optional('name'),
    type: a.optional('type') as GoalType | undefined,
    intent: a.optional('intent') as 'custom' | undefined,
    pattern: a.optional('pattern'),
    filters: opts.clearFilters ? {} : filters,
  };
  if (Object.values(patch).every((v) => v === undefined))
    a.problem('nothing to change: give --name, --type, --intent, --pattern, a filter option or --clear-filters');
  a.done();
  const g = await catalog.updateGoal(id, patch);
  return { json: { goal: goalJson(g) }, text: `Updated goal ${g.id} "${g.name}" (${g.type} ${g.pattern}). The next API request sees it.` };
}

async function deleteGoal(catalog: CatalogStore, _opts: Opts, [id]: string[]): Promise<Result> {
  if (!(await catalog.deleteGoal(id))) throw new CatalogError('NOT_FOUND', `unknown goal "${id}"`);
  return { json: { goal_id: id, deleted: true }, text: `Deleted goal ${id}; reports no longer count it.` };
}
