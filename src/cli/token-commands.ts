// `footfall token create|list|rename|revoke|rotate`, through the same use-cases as the management API, with
// the operator's rights. A secret is printed once, by create or rotate; the store keeps only its
// sha256, and list never shows either.
import type { Command } from 'commander';
import type { CatalogStore } from '../ports/catalog-store.js';
import { TOKEN_SCOPES, type TokenScope } from '../domain/access.js';
import { systemClock } from '../domain/clock.js';
import { OPERATOR, tokenAccess, workspaceAccess, type ManageDeps } from '../services/manage/access.js';
import * as tokens from '../services/manage/tokens.js';
import { withStoreOptions } from './options.js';
import { Args, group, listParent, run, type CommandContext, type Opts, type Result } from './catalog-command-kit.js';
import { lines, tokenJson } from './catalog-json.js';

export function registerTokenCommands(program: Command): void {
  const token = group(program, 'token', 'manage API tokens');
  withStoreOptions(token.command('create').description('create an API token; its secret is shown once'))
    .option('--workspace <id>', 'workspace id')
    .option('--scopes <list>', `comma-separated: ${TOKEN_SCOPES.join(',')}`)
    .option('--sites <list>', 'comma-separated site allowlist (default: every site)')
    .option('--tenants <list>', 'comma-separated tenant allowlist (default: every tenant)')
    .option('--name <name>', 'what the token is for, to tell it apart (default: unnamed)')
    .action(run(createToken));
  withStoreOptions(token.command('list').description('list the tokens of a workspace (never their secrets)'))
    .option('--workspace <id>', 'workspace id')
    .action(run(listTokens));
  withStoreOptions(token.command('rename').description('name a token, or with --clear leave it unnamed').argument('<token-id>'))
    .option('--name <name>', 'the new name')
    .option('--clear', 'remove the name')
    .action(run(renameToken));
  withStoreOptions(token.command('revoke').description('revoke a token; its next request is refused').argument('<token-id>')).action(
    run(revokeToken),
  );
  withStoreOptions(
    token
      .command('rotate')
      .description('give a token a new secret, shown once; the old secret is refused from the next request')
      .argument('<token-id>'),
  ).action(run(rotateToken));
}

const manageDeps = (ctx: CommandContext): ManageDeps => ({ catalog: ctx.control.catalog, people: ctx.control.people, clock: systemClock });

async function createToken(_catalog: CatalogStore, opts: Opts, _args: string[], ctx: CommandContext): Promise<Result> {
  const a = new Args(opts);
  const workspaceId = a.need('workspace', '--workspace <id>');
  const scopes = a.list('scopes', '--scopes') ?? [];
  if (opts.scopes === undefined) a.need('scopes', `--scopes ${TOKEN_SCOPES.join(',')}`);
  for (const s of scopes)
    if (s && !(TOKEN_SCOPES as readonly string[]).includes(s))
      a.problem(`unknown scope "${s}" in --scopes; scopes are ${TOKEN_SCOPES.join(', ')}`);
  const siteIds = a.list('sites', '--sites');
  const tenantIds = a.list('tenants', '--tenants');
  const name = a.optional('name');
  a.done();
  const deps = manageDeps(ctx);
  const access = await workspaceAccess(deps, OPERATOR, workspaceId, 'admin');
  const { token: t, secret } = await tokens.createToken(deps, access, { scopes: scopes as TokenScope[], siteIds, tenantIds, name });
  return {
    json: { token_id: t.id, secret },
    text: `Created token ${t.id}${t.name === null ? '' : ` "${t.name}"`} (${t.scopes.join(', ')}).\nSecret, shown only now (only its hash is stored): ${secret}`,
  };
}

async function listTokens(catalog: CatalogStore, opts: Opts): Promise<Result> {
  const tokens = await catalog.listTokens(await listParent(catalog, opts, 'workspace'));
  return {
    json: { tokens: tokens.map(tokenJson) },
    text: lines(tokens, 'No tokens.', (t) =>
      [
        t.id,
        t.name === null ? '(unnamed)' : `"${t.name}"`,
        t.revokedAt ? `revoked ${t.revokedAt}` : 'active',
        t.scopes.join(','),
        `sites ${t.siteIds ? t.siteIds.join(',') : 'all'}`,
        `tenants ${t.tenantIds ? t.tenantIds.join(',') : 'all'}`,
        `created ${t.createdAt}`,
        ...(t.rotatedAt ? [`rotated ${t.rotatedAt}`] : []),
      ].join('  '),
    ),
  };
}

async function renameToken(_catalog: CatalogStore, opts: Opts, [id]: string[], ctx: CommandContext): Promise<Result> {
  const a = new Args(opts);
  const name = a.optional('name');
  const clear = opts.clear === true;
  if (clear && name !== undefined) a.problem('give --name <name> or --clear, not both');
  else if (!clear && name === undefined) a.problem('missing --name <name> (or --clear to remove the name)');
  a.done();
  const deps = manageDeps(ctx);
  const t = await tokens.renameToken(deps, await tokenAccess(deps, OPERATOR, id, 'admin'), clear ? null : (name ?? null));
  return {
    json: { token_id: t.id, name: t.name },
    text: t.name === null ? `Token ${t.id} is now unnamed.` : `Renamed token ${t.id} to "${t.name}".`,
  };
}

async function revokeToken(_catalog: CatalogStore, _opts: Opts, [id]: string[], ctx: CommandContext): Promise<Result> {
  const deps = manageDeps(ctx);
  await tokens.revokeToken(deps, await tokenAccess(deps, OPERATOR, id, 'admin'));
  return { json: { token_id: id, revoked: true }, text: `Revoked token ${id}; its next request is refused.` };
}

async function rotateToken(_catalog: CatalogStore, _opts: Opts, [id]: string[], ctx: CommandContext): Promise<Result> {
  const deps = manageDeps(ctx);
  const { token: t, secret } = await tokens.rotateToken(deps, await tokenAccess(deps, OPERATOR, id, 'admin'));
  return {
    json: { token_id: t.id, secret },
    text: `Rotated token ${t.id}: the old secret is refused from the next request.\nNew secret, shown only now (only its hash is stored): ${secret}`,
  };
}
