// `footfall workspace|site|tenant|goal create` and `footfall token create|revoke` (DESIGN 2):
// the CLI stands in for the dashboard that manages the control plane.
import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { CatalogError, SCOPES, type CatalogStore, type GoalFilters, type Scope } from '../ports/catalog-store.js';
import { PLAN_IDS, validateApiPolicyOverrides, type ApiPolicy, type PlanId } from '../domain/plans.js';
import { generateSecret, hashSecret } from '../domain/tokens.js';
import { ConfigError } from '../config/config.js';
import { openControlStores } from '../container.js';
import { configFrom, withStoreOptions, type StoreOptions } from './options.js';
import { CliError, emit, fail } from './output.js';

interface Result {
  json: Record<string, unknown>;
  text: string;
}
type Opts = StoreOptions & Record<string, unknown>;

export function registerCatalogCommands(program: Command): void {
  const workspace = group(program, 'workspace', 'manage workspaces');
  withStoreOptions(workspace.command('create').description('create a workspace'))
    .option('--name <name>', 'workspace name')
    .option('--plan <plan>', PLAN_IDS.join('|'))
    .option('--api-policy <json>', 'enterprise only: JSON object of api policy overrides')
    .action(run(createWorkspace));

  const site = group(program, 'site', 'manage sites');
  withStoreOptions(site.command('create').description('register a site and its hostnames'))
    .option('--workspace <id>', 'workspace id')
    .option('--name <name>', 'site name')
    .option('--hostname <host>', 'a hostname of the site (repeat for more)', collect, [])
    .option('--profile <profile>', 'collection profile: strict|extended')
    .option('--profile-effective-at <iso>', 'instant from which the profile applies (default: since the site began)')
    .option('--status <status>', 'ACTIVE|SUSPENDED', 'ACTIVE')
    .action(run(createSite));

  const tenant = group(program, 'tenant', 'manage tenants of a site');
  withStoreOptions(tenant.command('create').description('create a tenant of a site'))
    .option('--site <id>', 'site id')
    .option('--slug <slug>', 'routing slug, unique in the site')
    .option('--name <name>', 'display name')
    .option('--status <status>', 'ACTIVE|INACTIVE', 'ACTIVE')
    .action(run(createTenant));

  const goal = group(program, 'goal', 'manage goals of a site');
  withStoreOptions(goal.command('create').description('create a goal of a site'))
    .option('--site <id>', 'site id')
    .option('--name <name>', 'goal name')
    .option('--type <type>', 'PAGEVIEW_MATCH|EVENT_MATCH')
    .option('--intent <intent>', 'lead|signup|purchase|download|outbound|content|custom')
    .option('--pattern <pattern>', 'page path pattern (* = any run of characters) or event name')
    .option('--action-id <id>', 'EVENT_MATCH filter')
    .option('--action-target-host <host>', 'EVENT_MATCH filter')
    .option('--form-id <id>', 'EVENT_MATCH filter')
    .option('--form-action-path <path>', 'EVENT_MATCH filter')
    .action(run(createGoal));

  const token = group(program, 'token', 'manage API tokens');
  withStoreOptions(token.command('create').description('create an API token; its secret is shown once'))
    .option('--workspace <id>', 'workspace id')
    .option('--scopes <list>', `comma-separated: ${SCOPES.join(',')}`)
    .option('--sites <list>', 'comma-separated site allowlist (default: every site)')
    .option('--tenants <list>', 'comma-separated tenant allowlist (default: every tenant)')
    .action(run(createToken));
  withStoreOptions(token.command('revoke').description('revoke a token; its next request is refused').argument('<token-id>'))
    .action(run(revokeToken));
}

/**
 * A command family. Commander's own argument errors (unknown option, missing value) also honour
 * --json: the same error object as every other failure goes to stdout.
 */
function group(program: Command, name: string, description: string): Command {
  return program
    .command(name)
    .description(description)
    .configureOutput({
      outputError: (str, write) => {
        if (process.argv.includes('--json'))
          process.stdout.write(JSON.stringify({ error: { code: 'INVALID_ARGUMENTS', message: str.trim().replace(/^error: /, '') } }) + '\n');
        write(str);
      },
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Opens the control plane, runs the command, always closes, and reports failures without a stack trace. */
function run(fn: (catalog: CatalogStore, opts: Opts, args: string[]) => Promise<Result>) {
  return async (...params: unknown[]): Promise<void> => {
    const cmd = params[params.length - 1] as Command;
    const opts = cmd.opts() as Opts;
    const args = params.slice(0, -2) as string[];
    const json = opts.json === true;
    try {
      const config = configFrom(opts);
      const cp = await openControlStores(config);
      try {
        const out = await fn(cp.catalog, opts, args);
        emit(json, out.json, out.text);
      } finally {
        await cp.close();
      }
    } catch (err) {
      fail(json, asCliError(err));
    }
  };
}

function asCliError(err: unknown): unknown {
  if (err instanceof CatalogError) return new CliError(err.message, err.code);
  if (err instanceof ConfigError) return new CliError(err.message, 'INVALID_CONFIG');
  if ((err as { code?: unknown })?.code === 'NOT_SUPPORTED') return new CliError((err as Error).message, 'NOT_SUPPORTED');
  return err;
}

function need(opts: Opts, key: string, flag: string): string {
  const v = opts[key];
  if (typeof v !== 'string' || v === '') throw new CliError(`missing ${flag}`);
  return v;
}

function list(flag: string, raw: unknown): string[] | null {
  if (raw === undefined) return null;
  const items = String(raw).split(',').map((s) => s.trim());
  if (items.some((s) => s === '')) throw new CliError(`${flag} must be a comma-separated list of ids without empty entries`);
  return items;
}

async function createWorkspace(catalog: CatalogStore, opts: Opts): Promise<Result> {
  const name = need(opts, 'name', '--name <name>');
  const plan = need(opts, 'plan', `--plan ${PLAN_IDS.join('|')}`);
  if (!(PLAN_IDS as readonly string[]).includes(plan)) throw new CliError(`--plan must be one of ${PLAN_IDS.join(', ')}, got "${plan}"`);
  let apiPolicy: Partial<ApiPolicy> | undefined;
  if (opts.apiPolicy !== undefined) {
    if (plan !== 'enterprise') throw new CliError('--api-policy applies to --plan enterprise only');
    let parsed: unknown;
    try {
      parsed = JSON.parse(String(opts.apiPolicy));
    } catch (err) {
      throw new CliError(`--api-policy is not valid JSON: ${(err as Error).message}`);
    }
    const problems = validateApiPolicyOverrides(parsed);
    if (problems.length) throw new CliError(`--api-policy: ${problems.join('; ')}`);
    apiPolicy = parsed as Partial<ApiPolicy>;
  }
  const ws = await catalog.createWorkspace({ name, plan: plan as PlanId, apiPolicy });
  return { json: { workspace_id: ws.id }, text: `Created workspace ${ws.id} "${ws.name}" on plan ${ws.plan}.` };
}

async function createSite(catalog: CatalogStore, opts: Opts): Promise<Result> {
  const workspaceId = need(opts, 'workspace', '--workspace <id>');
  const name = need(opts, 'name', '--name <name>');
  const hostnames = opts.hostname as string[];
  if (hostnames.length === 0) throw new CliError('missing --hostname <host> (repeat it for more hostnames)');
  const profile = need(opts, 'profile', '--profile strict|extended');
  if (profile !== 'strict' && profile !== 'extended') throw new CliError(`--profile must be strict or extended, got "${profile}"`);
  const site = await catalog.createSite({
    workspaceId,
    name,
    hostnames,
    collectionProfile: profile,
    profileEffectiveAt: (opts.profileEffectiveAt as string | undefined) ?? null,
    status: opts.status as 'ACTIVE',
  });
  return {
    json: { site_id: site.id },
    text: `Created site ${site.id} "${site.name}" (${site.hostnames.join(', ')}), profile ${site.collectionProfile}, ${site.status}.`,
  };
}

async function createTenant(catalog: CatalogStore, opts: Opts): Promise<Result> {
  const t = await catalog.createTenant({
    siteId: need(opts, 'site', '--site <id>'),
    slug: need(opts, 'slug', '--slug <slug>'),
    name: need(opts, 'name', '--name <name>'),
    status: opts.status as 'ACTIVE',
  });
  return { json: { tenant_id: t.id }, text: `Created tenant ${t.id} "${t.slug}" on site ${t.siteId}, ${t.status}.` };
}

async function createGoal(catalog: CatalogStore, opts: Opts): Promise<Result> {
  const filters: GoalFilters = {};
  for (const [key, opt] of [
    ['action_id', 'actionId'],
    ['action_target_host', 'actionTargetHost'],
    ['form_id', 'formId'],
    ['form_action_path', 'formActionPath'],
  ] as const) {
    if (opts[opt] !== undefined) filters[key] = String(opts[opt]);
  }
  const g = await catalog.createGoal({
    siteId: need(opts, 'site', '--site <id>'),
    name: need(opts, 'name', '--name <name>'),
    type: need(opts, 'type', '--type PAGEVIEW_MATCH|EVENT_MATCH') as 'PAGEVIEW_MATCH',
    intent: need(opts, 'intent', '--intent <intent>') as 'custom',
    pattern: need(opts, 'pattern', '--pattern <pattern>'),
    filters,
  });
  return { json: { goal_id: g.id }, text: `Created goal ${g.id} "${g.name}" (${g.type} ${g.pattern}) on site ${g.siteId}.` };
}

async function createToken(catalog: CatalogStore, opts: Opts): Promise<Result> {
  const workspaceId = need(opts, 'workspace', '--workspace <id>');
  const scopes = list('--scopes', need(opts, 'scopes', `--scopes ${SCOPES.join(',')}`))!;
  for (const s of scopes)
    if (!(SCOPES as readonly string[]).includes(s)) throw new CliError(`unknown scope "${s}" in --scopes; scopes are ${SCOPES.join(', ')}`);
  const secret = generateSecret(randomBytes);
  const t = await catalog.createToken({
    workspaceId,
    scopes: scopes as Scope[],
    siteIds: list('--sites', opts.sites),
    tenantIds: list('--tenants', opts.tenants),
    secretHash: hashSecret(secret),
  });
  return {
    json: { token_id: t.id, secret },
    text: `Created token ${t.id} (${t.scopes.join(', ')}).\nSecret, shown only now (only its hash is stored): ${secret}`,
  };
}

async function revokeToken(catalog: CatalogStore, _opts: Opts, args: string[]): Promise<Result> {
  const id = args[0];
  if (!(await catalog.revokeToken(id, new Date().toISOString()))) throw new CliError(`unknown token "${id}"`, 'NOT_FOUND');
  return { json: { token_id: id, revoked: true }, text: `Revoked token ${id}; its next request is refused.` };
}
