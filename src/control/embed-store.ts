// EmbedStore over Kysely: embed keys and share links, the same queries on SQLite and PostgreSQL.
import { randomBytes } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { systemClock, type Clock } from '../domain/clock.js';
import { newId, type RandomBytes } from '../domain/tokens.js';
import { CatalogError } from '../ports/catalog-store.js';
import type { EmbedKey, EmbedStore, NewShareLink, ShareLink } from '../ports/embed-store.js';
import { isUniqueViolation } from './db-errors.js';
import { queryTemplate } from './query-template.js';
import type { ControlDB, EmbedKeysTable, ShareLinksTable } from './schema.js';
import { checkInstant } from './validation.js';

function toEmbedKey(r: Selectable<EmbedKeysTable>): EmbedKey {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    origins: JSON.parse(r.origins) as string[],
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
  };
}

function toShareLink(r: Selectable<ShareLinksTable>): ShareLink {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    siteId: r.site_id,
    tenantId: r.tenant_id,
    passwordHash: r.password_hash,
    expiresAt: r.expires_at,
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
  };
}

export class KyselyEmbedStore implements EmbedStore {
  private readonly clock: Clock;
  private readonly random: RandomBytes;

  constructor(
    private readonly db: Kysely<ControlDB>,
    opts: { clock?: Clock; random?: RandomBytes } = {},
  ) {
    this.clock = opts.clock ?? systemClock;
    this.random = opts.random ?? randomBytes;
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  async createEmbedKey(input: { workspaceId: string; origins: string[] }): Promise<EmbedKey> {
    const workspace = await this.db.selectFrom('workspaces').select('id').where('id', '=', input.workspaceId).executeTakeFirst();
    if (!workspace) throw new CatalogError('NOT_FOUND', `unknown workspace "${input.workspaceId}"`);
    const row = {
      id: newId('ek', this.random),
      workspace_id: input.workspaceId,
      origins: JSON.stringify(input.origins),
      created_at: this.now(),
      revoked_at: null,
    };
    await this.db.insertInto('embed_keys').values(row).execute();
    return toEmbedKey(row);
  }

  // Every embed token's request looks its key up: compiled once (query-template.ts).
  private readonly keyById = queryTemplate(1, (id: string) => this.db.selectFrom('embed_keys').selectAll().where('id', '=', id));

  async getEmbedKey(id: string): Promise<EmbedKey | null> {
    const row = (await this.db.executeQuery(this.keyById(id))).rows[0];
    return row ? toEmbedKey(row) : null;
  }

  async listEmbedKeys(workspaceId: string): Promise<EmbedKey[]> {
    const rows = await this.db
      .selectFrom('embed_keys')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toEmbedKey);
  }

  async revokeEmbedKey(id: string, at: string): Promise<boolean> {
    const when = checkInstant('revocation time', at) ?? this.now();
    await this.db.updateTable('embed_keys').set({ revoked_at: when }).where('id', '=', id).where('revoked_at', 'is', null).execute();
    return (await this.db.selectFrom('embed_keys').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
  }

  async createShareLink(input: NewShareLink): Promise<ShareLink> {
    const site = await this.db.selectFrom('sites').select(['id', 'workspace_id']).where('id', '=', input.siteId).executeTakeFirst();
    if (!site) throw new CatalogError('NOT_FOUND', `unknown site "${input.siteId}"`);
    if (input.tenantId !== null) {
      const tenant = await this.db.selectFrom('tenants').select('site_id').where('id', '=', input.tenantId).executeTakeFirst();
      if (!tenant || tenant.site_id !== site.id)
        throw new CatalogError('NOT_FOUND', `unknown tenant "${input.tenantId}" of site ${site.id}`);
    }
    const row = {
      id: newId('shr', this.random),
      workspace_id: site.workspace_id,
      site_id: site.id,
      tenant_id: input.tenantId,
      slug_hash: input.slugHash,
      password_hash: input.passwordHash,
      expires_at: checkInstant('expiry', input.expiresAt),
      created_at: this.now(),
      revoked_at: null,
    };
    try {
      await this.db.insertInto('share_links').values(row).execute();
    } catch (err) {
      if (isUniqueViolation(err)) throw new CatalogError('CONFLICT', 'a share link with this slug already exists');
      throw err;
    }
    return toShareLink(row);
  }

  async getShareLink(id: string): Promise<ShareLink | null> {
    const row = await this.db.selectFrom('share_links').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toShareLink(row) : null;
  }

  async findShareLinkBySlugHash(slugHash: string): Promise<ShareLink | null> {
    const row = await this.db.selectFrom('share_links').selectAll().where('slug_hash', '=', slugHash).executeTakeFirst();
    return row ? toShareLink(row) : null;
  }

  async listShareLinks(siteId: string): Promise<ShareLink[]> {
    const rows = await this.db
      .selectFrom('share_links')
      .selectAll()
      .where('site_id', '=', siteId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toShareLink);
  }

  async revokeShareLink(id: string, at: string): Promise<boolean> {
    const when = checkInstant('revocation time', at) ?? this.now();
    await this.db.updateTable('share_links').set({ revoked_at: when }).where('id', '=', id).where('revoked_at', 'is', null).execute();
    return (await this.db.selectFrom('share_links').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
  }
}
