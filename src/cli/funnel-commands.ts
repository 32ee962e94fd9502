// `footfall funnel create|list|delete`: a site's saved funnels (POST /api/v2/funnel reads one by its
// funnel_id). A step is written page:<path pattern> or event:<event name>, in order.
import type { Command } from 'commander';
import { type FunnelStep, parseStepFlag, stepFlag } from '../domain/funnels.js';
import { CatalogError, type CatalogStore } from '../ports/catalog-store.js';
import { withStoreOptions } from './options.js';
import { Args, collect, group, listParent, run, type Opts, type Result } from './catalog-command-kit.js';
import { funnelJson, lines } from './catalog-json.js';

export function registerFunnelCommands(program: Command): void {
  const funnel = group(program, 'funnel', 'manage saved funnels of a site');
  withStoreOptions(funnel.command('create').description('save a funnel of a site: 2 to 8 steps, in order'))
    .option('--site <id>', 'site id')
    .option('--name <name>', 'funnel name')
    .option('--step <step>', 'page:<path pattern> (* any run of characters) or event:<event name>; repeat it, in order', collect, [])
    .action(run(createFunnel));
  withStoreOptions(funnel.command('list').description('list the saved funnels of a site'))
    .option('--site <id>', 'site id')
    .action(run(listFunnels));
  withStoreOptions(funnel.command('delete').description('delete a saved funnel').argument('<funnel-id>')).action(run(deleteFunnel));
}

async function createFunnel(catalog: CatalogStore, opts: Opts): Promise<Result> {
  const a = new Args(opts);
  const siteId = a.need('site', '--site <id>');
  const name = a.need('name', '--name <name>');
  const steps: FunnelStep[] = [];
  for (const text of a.needMany('step', '--step <page:path|event:name> (2 to 8 of them)')) {
    const s = parseStepFlag(text);
    if ('problem' in s) a.problem(s.problem);
    else steps.push(s);
  }
  a.done();
  // the count, a repeated step and the site are the store's to check, with the same messages as over the API
  const f = await catalog.createFunnel({ siteId, name, steps });
  return {
    json: { funnel_id: f.id },
    text: `Created funnel ${f.id} "${f.name}" on site ${f.siteId}: ${f.steps.map(stepFlag).join(' -> ')}.`,
  };
}

async function listFunnels(catalog: CatalogStore, opts: Opts): Promise<Result> {
  const funnels = await catalog.listFunnels(await listParent(catalog, opts, 'site'));
  return {
    json: { funnels: funnels.map(funnelJson) },
    text: lines(funnels, 'No funnels.', (f) => `${f.id}  "${f.name}"  ${f.steps.map(stepFlag).join(' -> ')}`),
  };
}

async function deleteFunnel(catalog: CatalogStore, _opts: Opts, [id]: string[]): Promise<Result> {
  if (!(await catalog.deleteFunnel(id))) throw new CatalogError('NOT_FOUND', `unknown funnel "${id}"`);
  return { json: { funnel_id: id, deleted: true }, text: `Deleted funnel ${id}.` };
}
