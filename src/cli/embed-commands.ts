// `footfall embed-key create|list|revoke` and `footfall share create|list|revoke`, through the same
// use-cases as the management API, with the operator's rights. An embed key's secret and a share link's
// url are printed once; neither is stored (a key's secret is derived, a link's slug kept as its hash).
import type { Command } from 'commander';
import { systemClock } from '../domain/clock.js';
import { CatalogError, type CatalogStore } from '../ports/catalog-store.js';
import { openPasswordHasher } from '../container.js';
import { OPERATOR, siteAccess, workspaceAccess } from '../services/manage/access.js';
import { createEmbedKey, listEmbedKeys, revokeEmbedKey, type EmbedDeps } from '../services/embeds/embed-keys.js';
import { embedKeyJson, shareLinkJson } from '../services/embeds/embeds-json.js';
import { createShareLink, listShareLinks, revokeShareLink, type ShareDeps } from '../services/embeds/share-links.js';
import { withStoreOptions } from './options.js';
import { Args, group, run, type CommandContext, type Opts, type Result } from './catalog-command-kit.js';
import { lines } from './catalog-json.js';
import { readPassword } from './read-password.js';

export function registerEmbedCommands(program: Command): void {
  const key = group(program, 'embed-key', 'manage embed keys: what a SaaS backend signs embed tokens with');
  withStoreOptions(key.command('create').description('create an embed key; its secret is shown once'))
    .option('--workspace <id>', 'workspace id')
    .option('--origins <list>', 'comma-separated https origins that may frame the embed page (default: none, not framable)')
    .action(run(createKey));
  withStoreOptions(key.command('list').description('list the embed keys of a workspace (never their secrets)'))
    .option('--workspace <id>', 'workspace id')
    .action(run(listKeys));
  withStoreOptions(
    key.command('revoke').description('revoke an embed key; its tokens are refused from the next request').argument('<key-id>'),
  ).action(run(revokeKey));

  const share = group(program, 'share', 'manage share links: a read-only dashboard of a site for people without a backend');
  withStoreOptions(share.command('create').description('create a share link; its url is shown once'))
    .option('--site <id>', 'site id')
    .option('--tenant <id>', 'show this tenant of the site only')
    .option('--password', 'ask for a password (typed, or the first line of standard input)')
    .option('--expires <iso>', 'the instant the link stops working, e.g. 2026-01-31T00:00:00Z (default: never)')
    .option('--public-url <origin>', 'origin of the link (FOOTFALL_PUBLIC_URL, default http://<host>:<port> of serve)')
    .action(run(createShare));
  withStoreOptions(share.command('list').description('list the share links of a site (never their urls)'))
    .option('--site <id>', 'site id')
    .action(run(listShares));
  withStoreOptions(
    share.command('revoke').description('revoke a share link; it is gone from the next request').argument('<share-id>'),
  ).action(run(revokeShare));
}

const embedDeps = (ctx: CommandContext): EmbedDeps => ({
  catalog: ctx.control.catalog,
  people: ctx.control.people,
  embeds: ctx.control.embeds,
  clock: systemClock,
});

async function createKey(_catalog: CatalogStore, opts: Opts, _args: string[], ctx: CommandContext): Promise<Result> {
  const a = new Args(opts);
  const workspaceId = a.need('workspace', '--workspace <id>');
  const origins = a.list('origins', '--origins') ?? [];
  a.done();
  const deps = embedDeps(ctx);
  const { key, secret } = await createEmbedKey(deps, await workspaceAccess(deps, OPERATOR, workspaceId, 'admin'), { origins });
  return {
    json: { key_id: key.id, secret },
    text: [
      `Created embed key ${key.id}; ${key.origins.length ? `framable by ${key.origins.join(', ')}` : 'no origin may frame its embeds'}.`,
      `Secret, shown only now (sign embed tokens with it, HS256, header kid ${key.id}): ${secret}`,
    ].join('\n'),
  };
}

async function listKeys(_catalog: CatalogStore, opts: Opts, _args: string[], ctx: CommandContext): Promise<Result> {
  const a = new Args(opts);
  const workspaceId = a.need('workspace', '--workspace <id>');
  a.done();
  const deps = embedDeps(ctx);
  const keys = await listEmbedKeys(deps, await workspaceAccess(deps, OPERATOR, workspaceId, 'admin'));
  return {
    json: { embed_keys: keys.map(embedKeyJson) },
    text: lines(keys, 'No embed keys.', (k) =>
      [
        k.id,
        k.revokedAt ? `revoked ${k.revokedAt}` : 'active',
        `origins ${k.origins.length ? k.origins.join(',') : 'none'}`,
        `created ${k.createdAt}`,
      ].join('  '),
    ),
  };
}

async function revokeKey(_catalog: CatalogStore, _opts: Opts, [id]: string[], ctx: CommandContext): Promise<Result> {
  const deps = embedDeps(ctx);
  const key = await deps.embeds.getEmbedKey(id);
  if (!key) throw new CatalogError('NOT_FOUND', `unknown embed key "${id}"`);
  await revokeEmbedKey(deps, await workspaceAccess(deps, OPERATOR, key.workspaceId, 'admin'), id);
  return { json: { key_id: id, revoked: true }, text: `Revoked embed key ${id}; its tokens are refused from the next request.` };
}

async function createShare(_catalog: CatalogStore, opts: Opts, _args: string[], ctx: CommandContext): Promise<Result> {
  const a = new Args(opts);
  const siteId = a.need('site', '--site <id>');
  const tenantId = a.optional('tenant');
  const expiresAt = a.optional('expires');
  a.done();
  const password = opts.password === true ? await readPassword('Password of the share link') : null;
  const deps: ShareDeps = { ...embedDeps(ctx), hasher: await openPasswordHasher(), publicUrl: ctx.config.publicUrl };
  const { share, url } = await createShareLink(deps, await siteAccess(deps, OPERATOR, siteId, 'admin'), { tenantId, password, expiresAt });
  return {
    json: { share_id: share.id, url },
    text: [
      `Created share link ${share.id} of site ${share.siteId}${share.tenantId ? `, tenant ${share.tenantId}` : ''}${password ? ', with a password' : ''}${share.expiresAt ? `, until ${share.expiresAt}` : ''}.`,
      `Link, shown only now (only its hash is stored):`,
      url,
    ].join('\n'),
  };
}

async function listShares(_catalog: CatalogStore, opts: Opts, _args: string[], ctx: CommandContext): Promise<Result> {
  const a = new Args(opts);
  const siteId = a.need('site', '--site <id>');
  a.done();
  const deps = embedDeps(ctx);
  const shares = await listShareLinks(deps, await siteAccess(deps, OPERATOR, siteId, 'admin'));
  const now = systemClock.now();
  return {
    json: { shares: shares.map((s) => shareLinkJson(s, now)) },
    text: lines(shares, 'No share links.', (s) => {
      const j = shareLinkJson(s, now);
      return [
        s.id,
        j.state,
        `tenant ${s.tenantId ?? 'all'}`,
        j.password ? 'password' : 'no password',
        `expires ${s.expiresAt ?? 'never'}`,
        `created ${s.createdAt}`,
      ].join('  ');
    }),
  };
}

async function revokeShare(_catalog: CatalogStore, _opts: Opts, [id]: string[], ctx: CommandContext): Promise<Result> {
  const deps = embedDeps(ctx);
  const share = await deps.embeds.getShareLink(id);
  if (!share) throw new CatalogError('NOT_FOUND', `unknown share link "${id}"`);
  await revokeShareLink(deps, await siteAccess(deps, OPERATOR, share.siteId, 'admin'), id);
  return { json: { share_id: id, revoked: true }, text: `Revoked share link ${id}; it is gone from the next request.` };
}
