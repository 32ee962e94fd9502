// CatalogStore over Kysely. Dialect-independent: the same queries run on SQLite and PostgreSQL.
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import {
  CatalogError,
  type CatalogStore,
  type Goal,
  type Site,
  type Tenant,
  type TenantStatus,
  type Token,
  type Workspace,
} from '../ports/catalog-store.js';
import { apiPolicyFor, hasApiAccess, validateApiPolicyOverrides, type ApiPolicyOverrides, type PlanId } from '../domain/plans.js';
import type { TokenScope } from '../domain/access.js';
import { systemClock, type Clock } from '../domain/clock.js';
import { isSecretHash, newId, type RandomBytes } from '../domain/tokens.js';
import { isUniqueViolation } from './db-errors.js';
import { markDomainVerified } from './site-ownership.js';
import { toGoal, toSite, toTenant, toToken, toWorkspace } from './catalog-rows.js';
import * as funnels from './catalog-funnels.js';
import * as manage from './catalog-management.js';
import * as sites from './catalog-sites.js';
import { kyselyRunner, queryTemplate, type RunQuery } from './query-template.js';
import { admissionReads, type AdmissionReads } from './admission-reads.js';
import { insertWorkspace, planHistory } from './workspace-plans.js';
import type { ControlDB, GoalsTable, TenantsTable, TokensTable } from './schema.js';
import { checkGoal, checkIdList, checkInstant, checkName, checkPlan, checkScopes, checkSlug, checkTenantStatus } from './validation.js';

export interface ControlStoreOptions {
  clock?: Clock;
  random?: RandomBytes;
  /** Called by close(); the factory that opened the database decides what closing means. */
  onClose?: () => Promise<void>;
  /** how the request path's lookups run, given Kysely's way (default: Kysely's way) */
  runner?: (fallback: RunQuery) => RunQuery;
}

export class KyselyCatalogStore implements CatalogStore {
  private readonly clock: Clock;
  private readonly random: RandomBytes;
  private readonly onClose: () => Promise<void>;

  constructor(
    private readonly db: Kysely<ControlDB>,
    opts: ControlStoreOptions = {},
  ) {
    this.clock = opts.clock ?? systemClock;
    this.random = opts.random ?? randomBytes;
    this.onClose = opts.onClose ?? (async () => {});
    this.run = opts.runner ? opts.runner(kyselyRunner(db)) : kyselyRunner(db);
    this.admission = admissionReads(db, this.run);
    this.manage = { db, now: () => this.clock.now(), random: this.random, getSite: (id) => this.getSite(id) };
    this.sites = {
      db,
      random: this.random,
      now: () => this.now(),
      requireWorkspace: (id) => this.requireWorkspace(id),
      getSite: (id) => this.getSite(id),
    };
  }

  private readonly run: RunQuery;
  private readonly admission: AdmissionReads;

  // The lookups every authenticated request makes, compiled once (query-template.ts).
  private readonly q = {
    token: queryTemplate(1, (secretHash: string) => this.db.selectFrom('tokens').selectAll().where('secret_hash', '=', secretHash)),
    tokenById: queryTemplate(1, (id: string) => this.db.selectFrom('tokens').selectAll().where('id', '=', id)),
    workspace: queryTemplate(1, (id: string) => this.db.selectFrom('workspaces').selectAll().where('id', '=', id)),
    // One row per hostname (none: one row with a null hostname).
    siteWithHostnames: queryTemplate(1, (id: string) =>
      this.db
        .selectFrom('sites')
        .leftJoin('site_hostnames', 'site_hostnames.site_id', 'sites.id')
        .selectAll('sites')
        .select('site_hostnames.hostname')
        .where('sites.id', '=', id)
        .orderBy('site_hostnames.ordinal'),
    ),
    tenant: queryTemplate(1, (id: string) => this.db.selectFrom('tenants').selectAll().where('id', '=', id)),
  };

  private now(): string {
    return this.clock.now().toISOString();
  }

  async createWorkspace(input: { name: string; plan: PlanId; apiPolicy?: ApiPolicyOverrides }): Promise<Workspace> {
    const name = checkName('workspace name', input.name);
    const plan = checkPlan(input.plan);
    const apiPolicy = input.apiPolicy ?? {};
    const problems = validateApiPolicyOverrides(apiPolicy);
    if (problems.length) throw new CatalogError('INVALID', problems.join('; '));
    if (plan !== 'enterprise' && Object.keys(apiPolicy).length > 0)
      throw new CatalogError('INVALID', 'an api policy can be set on enterprise workspaces only');
    const row = { id: newId('ws', this.random), name, plan, api_policy: JSON.stringify(apiPolicy), created_at: this.now() };
    await this.db.transaction().execute((trx) => insertWorkspace(trx, row));
    return toWorkspace(row);
  }

  private readonly manage: manage.ManageContext;
  private readonly sites: sites.SitesContext;

  listWorkspaces = () => manage.listWorkspaces(this.manage);
  updateWorkspace: CatalogStore['updateWorkspace'] = (id, patch) => manage.updateWorkspace(this.manage, id, patch);
  planHistory: CatalogStore['planHistory'] = (workspaceId) => planHistory(this.db, workspaceId);
  updateSite: CatalogStore['updateSite'] = (id, patch) => manage.updateSite(this.manage, id, patch);
  updateTenant: CatalogStore['updateTenant'] = (id, patch) => manage.updateTenant(this.manage, id, patch);
  getGoal: CatalogStore['getGoal'] = (id) => manage.getGoal(this.manage, id);
  updateGoal: CatalogStore['updateGoal'] = (id, patch) => manage.updateGoal(this.manage, id, patch);
  deleteGoal: CatalogStore['deleteGoal'] = (id) => manage.deleteGoal(this.manage, id);
  createFunnel: CatalogStore['createFunnel'] = (input) => funnels.createFunnel(this.manage, input);
  listFunnels: CatalogStore['listFunnels'] = (siteId) => funnels.listFunnels(this.manage, siteId);
  getFunnel: CatalogStore['getFunnel'] = (id) => funnels.getFunnel(this.manage, id);
  updateFunnel: CatalogStore['updateFunnel'] = (id, patch) => funnels.updateFunnel(this.manage, id, patch);
  deleteFunnel: CatalogStore['deleteFunnel'] = (id) => funnels.deleteFunnel(this.manage, id);
  // by id: the parent of every embed token, looked up on each of its requests
  async getToken(id: string): Promise<Token | null> {
    const row = (await this.run(this.q.tokenById(id))).rows[0];
    return row ? toToken(row) : null;
  }
  listTokens: CatalogStore['listTokens'] = (workspaceId) => manage.listTokens(this.manage, workspaceId);
  rotateToken: CatalogStore['rotateToken'] = (id, secretHash) => manage.rotateToken(this.manage, id, secretHash);

  async getWorkspace(id: string): Promise<Workspace | null> {
    const row = (await this.run(this.q.workspace(id))).rows[0];
    return row ? toWorkspace(row) : null;
  }

  private async requireWorkspace(id: string): Promise<Workspace> {
    const ws = typeof id === 'string' ? await this.getWorkspace(id) : null;
    if (!ws) throw new CatalogError('NOT_FOUND', `unknown workspace "${String(id)}"`);
    return ws;
  }

  private async requireSite(id: string): Promise<Site> {
    const site = typeof id === 'string' ? await this.getSite(id) : null;
    if (!site) throw new CatalogError('NOT_FOUND', `unknown site "${String(id)}"`);
    return site;
  }

  createSite: CatalogStore['createSite'] = (input) => sites.createSite(this.sites, input);

  /** One round trip: every request of an analytics route reads its site. */
  async getSite(id: string): Promise<Site | null> {
    const { rows } = await this.run(this.q.siteWithHostnames(id));
    if (rows.length === 0) return null;
    const hostnames: string[] = [];
    for (const r of rows) if (r.hostname !== null) hostnames.push(r.hostname);
    return toSite(rows[0], hostnames);
  }

  findSiteByHostname: CatalogStore['findSiteByHostname'] = (hostname) => sites.findSiteByHostname(this.sites, hostname);
  getSiteOwnership: CatalogStore['getSiteOwnership'] = (siteId) => sites.getSiteOwnership(this.sites, siteId);
  listSiteOwnership: CatalogStore['listSiteOwnership'] = (workspaceId) => sites.listSiteOwnership(this.sites, workspaceId);

  markDomainVerified: CatalogStore['markDomainVerified'] = (workspaceId, domain) =>
    markDomainVerified(this.db, workspaceId, domain, this.now());

  listSites: CatalogStore['listSites'] = (workspaceId) => sites.listSites(this.sites, workspaceId);

  async createTenant(input: { siteId: string; slug: string; name: string; status?: TenantStatus }): Promise<Tenant> {
    const slug = checkSlug(input.slug);
    const name = checkName('tenant name', input.name);
    const status = checkTenantStatus(input.status ?? 'ACTIVE');
    await this.requireSite(input.siteId);
    const row: TenantsTable = { id: newId('ten', this.random), site_id: input.siteId, slug, name, status, created_at: this.now() };
    try {
      await this.db.insertInto('tenants').values(row).execute();
    } catch (err) {
      if (isUniqueViolation(err)) throw new CatalogError('CONFLICT', `site ${input.siteId} already has a tenant with slug "${slug}"`);
      throw err;
    }
    return toTenant(row);
  }

  async getTenant(id: string): Promise<Tenant | null> {
    const row = (await this.run(this.q.tenant(id))).rows[0];
    return row ? toTenant(row) : null;
  }

  async listTenants(siteId: string): Promise<Tenant[]> {
    const rows = await this.db.selectFrom('tenants').selectAll().where('site_id', '=', siteId).orderBy('slug').execute();
    return rows.map(toTenant);
  }

  async createGoal(input: Omit<Goal, 'id' | 'workspaceId' | 'createdAt' | 'updatedAt'>): Promise<Goal> {
    const goal = checkGoal(input);
    const site = await this.requireSite(input.siteId);
    const now = this.now();
    const row: GoalsTable = {
      id: newId('goal', this.random),
      site_id: site.id,
      workspace_id: site.workspaceId,
      name: goal.name,
      type: goal.type,
      intent: goal.intent,
      pattern: goal.pattern,
      filters: JSON.stringify(goal.filters),
      created_at: now,
      updated_at: now,
    };
    await this.db.insertInto('goals').values(row).execute();
    return toGoal(row);
  }

  async listGoals(siteId: string): Promise<Goal[]> {
    const rows = await this.db.selectFrom('goals').selectAll().where('site_id', '=', siteId).orderBy('created_at').orderBy('id').execute();
    return rows.map(toGoal);
  }

  async createToken(input: {
    workspaceId: string;
    scopes: TokenScope[];
    siteIds?: string[] | null;
    tenantIds?: string[] | null;
    secretHash: string;
    name?: string | null;
  }): Promise<Token> {
    const name = input.name == null ? null : checkName('token name', input.name);
    const scopes = checkScopes(input.scopes);
    const siteIds = checkIdList('site', input.siteIds);
    const tenantIds = checkIdList('tenant', input.tenantIds);
    if (!isSecretHash(input.secretHash)) throw new CatalogError('INVALID', 'secret hash must be 64 lower-case hex characters (sha256)');
    const ws = await this.requireWorkspace(input.workspaceId);
    const policy = apiPolicyFor(ws.plan, ws.apiPolicy);
    if (!hasApiAccess(policy) || !policy.can_create_tokens)
      throw new CatalogError('INVALID', `the ${ws.plan} plan of workspace ${ws.id} has no API access, so it cannot have tokens`);

    const sites = await this.listSites(ws.id);
    const siteSet = new Set(sites.map((s) => s.id));
    for (const id of siteIds ?? [])
      if (!siteSet.has(id)) throw new CatalogError('INVALID', `site "${id}" is not a site of workspace ${ws.id}`);
    if (tenantIds) {
      if (!policy.allow_tenants)
        throw new CatalogError('INVALID', `the ${ws.plan} plan has no tenant API access, so a token cannot have a tenant allowlist`);
      const reachable = siteIds ?? [...siteSet];
      const known = reachable.length
        ? await this.db.selectFrom('tenants').select('id').where('site_id', 'in', reachable).where('id', 'in', tenantIds).execute()
        : [];
      const knownSet = new Set(known.map((t) => t.id));
      for (const id of tenantIds)
        if (!knownSet.has(id))
          throw new CatalogError('INVALID', `tenant "${id}" is not a tenant of ${siteIds ? 'the allowed sites' : `workspace ${ws.id}`}`);
    }

    const row: TokensTable = {
      id: newId('tok', this.random),
      workspace_id: ws.id,
      secret_hash: input.secretHash,
      name,
      scopes: JSON.stringify(scopes),
      site_ids: siteIds ? JSON.stringify(siteIds) : null,
      tenant_ids: tenantIds ? JSON.stringify(tenantIds) : null,
      revoked_at: null,
      rotated_at: null,
      created_at: this.now(),
    };
    try {
      await this.db.insertInto('tokens').values(row).execute();
    } catch (err) {
      if (isUniqueViolation(err)) throw new CatalogError('CONFLICT', 'a token with this secret already exists');
      throw err;
    }
    return toToken(row);
  }

  async findTokenByHash(secretHash: string): Promise<Token | null> {
    const row = (await this.run(this.q.token(secretHash))).rows[0];
    return row ? toToken(row) : null;
  }

  async findTokenWithWorkspace(secretHash: string): Promise<{ token: Token; workspace: Workspace } | null>;
  async findTokenWithWorkspace(
    secretHash: string,
    siteId: string,
  ): Promise<{ token: Token; workspace: Workspace; site: Site | null } | null>;
  async findTokenWithWorkspace(
    secretHash: string,
    siteId?: string,
  ): Promise<{ token: Token; workspace: Workspace; site?: Site | null } | null> {
    return siteId === undefined ? this.admission.token(secretHash) : this.admission.tokenAndSite(secretHash, siteId);
  }

  /** Revoking twice keeps the first revocation time and still answers true. */
  async revokeToken(id: string, at: string): Promise<boolean> {
    const when = checkInstant('revocation time', at) ?? this.now();
    await this.db.updateTable('tokens').set({ revoked_at: when }).where('id', '=', id).where('revoked_at', 'is', null).execute();
    const row = await this.db.selectFrom('tokens').select('id').where('id', '=', id).executeTakeFirst();
    return row !== undefined;
  }

  async renameToken(id: string, name: string | null): Promise<Token> {
    const checked = name === null ? null : checkName('token name', name);
    const changed = await this.db.updateTable('tokens').set({ name: checked }).where('id', '=', id).executeTakeFirst();
    const token = Number(changed.numUpdatedRows) === 0 ? null : await this.getToken(id);
    if (!token) throw new CatalogError('NOT_FOUND', `unknown token "${id}"`);
    return token;
  }

  async getOrCreateSecret(name: string): Promise<string> {
    if (typeof name !== 'string' || name === '') throw new CatalogError('INVALID', 'secret name must be a non-empty string');
    // Concurrent first uses race on the insert; the loser keeps the winner's value.
    await this.db
      .insertInto('secrets')
      .values({ name, value: Buffer.from(this.random(32)).toString('hex'), created_at: this.now() })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const row = await this.db.selectFrom('secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
    return row.value;
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  async close(): Promise<void> {
    await this.onClose();
  }
}
