// The management half of the catalog (`footfall workspace|site|tenant|goal|token list|update|…`):
// lists and changes after creation. Dialect-independent like catalog-store.ts, which delegates here.
// Every change is one transaction, read back by the very next request (nothing caches the catalog).
import type { Kysely, UpdateResult } from 'kysely';
import {
  CatalogError,
  type Goal,
  type GoalPatch,
  type Site,
  type SitePatch,
  type Tenant,
  type TenantStatus,
  type Token,
  type Workspace,
} from '../ports/catalog-store.js';
import { validateApiPolicyOverrides, type ApiPolicyOverrides, type PlanId } from '../domain/plans.js';
import { isSecretHash, type RandomBytes } from '../domain/tokens.js';
import { isUniqueViolation } from './db-errors.js';
import { changeProfile } from './profile-change.js';
import { refuseTakenHostnames, replaceHostnames } from './site-hostnames.js';
import { checkOwnershipRequest, claimInTransaction } from './site-ownership.js';
import { toGoal, toTenant, toToken, toWorkspace } from './catalog-rows.js';
import { lockWorkspace } from './workspace-lock.js';
import { recordPlanChange } from './workspace-plans.js';
import type { ControlDB, GoalsTable, SitesTable, TenantsTable, WorkspacesTable } from './schema.js';
import {
  checkGoal,
  checkInstant,
  checkName,
  checkPlan,
  checkProfile,
  checkSiteStatus,
  checkSlug,
  checkTenantStatus,
  checkTimeZone,
  normalizeHostnames,
} from './validation.js';

export interface ManageContext {
  db: Kysely<ControlDB>;
  now(): Date;
  /** verification codes of newly asked-for domains */
  random: RandomBytes;
  getSite(id: string): Promise<Site | null>;
}

function notFound(what: string, id: unknown): CatalogError {
  return new CatalogError('NOT_FOUND', `unknown ${what} "${String(id)}"`);
}

/** Refuses a patch that changes nothing, so a typo'd command never reports success silently. */
function needSomething(what: string, patch: object): void {
  if (!Object.values(patch).some((v) => v !== undefined)) throw new CatalogError('INVALID', `nothing to change on the ${what}`);
}

export async function listWorkspaces(ctx: ManageContext): Promise<Workspace[]> {
  const rows = await ctx.db.selectFrom('workspaces').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.map(toWorkspace);
}

export async function updateWorkspace(
  ctx: ManageContext,
  id: string,
  patch: { name?: string; plan?: PlanId; apiPolicy?: ApiPolicyOverrides },
): Promise<Workspace> {
  needSomething('workspace', patch);
  return ctx.db.transaction().execute(async (trx) => {
    // The row lock first: a concurrent change waits, then reads what this one wrote.
    if (!(await lockWorkspace(trx, id))) throw notFound('workspace', id);
    const current = await trx.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const plan = patch.plan === undefined ? (current.plan as PlanId) : checkPlan(patch.plan);
    const set: Partial<WorkspacesTable> = {};
    if (patch.name !== undefined) set.name = checkName('workspace name', patch.name);
    set.plan = plan;
    if (patch.apiPolicy !== undefined) {
      const problems = validateApiPolicyOverrides(patch.apiPolicy);
      if (problems.length) throw new CatalogError('INVALID', problems.join('; '));
      if (plan !== 'enterprise' && Object.keys(patch.apiPolicy).length > 0)
        throw new CatalogError('INVALID', 'an api policy can be set on enterprise workspaces only');
      set.api_policy = JSON.stringify(patch.apiPolicy);
    } else if (plan !== 'enterprise') {
      // Overrides belong to the enterprise plan: a move off it leaves the plan's own policy.
      set.api_policy = '{}';
    }
    await trx.updateTable('workspaces').set(set).where('id', '=', id).execute();
    const apiPolicy = set.api_policy ?? current.api_policy;
    if (plan !== current.plan || apiPolicy !== current.api_policy)
      await recordPlanChange(trx, id, plan, apiPolicy, ctx.now().toISOString());
    return toWorkspace({ ...current, ...set });
  });
}

export async function updateSite(ctx: ManageContext, id: string, patch: SitePatch): Promise<Site> {
  needSomething('site', patch);
  const site = await ctx.getSite(id);
  if (!site) throw notFound('site', id);
  const set: Partial<SitesTable> = {};
  if (patch.name !== undefined) set.name = checkName('site name', patch.name);
  if (patch.status !== undefined) set.status = checkSiteStatus(patch.status);
  if (patch.timezone !== undefined) set.timezone = checkTimeZone(patch.timezone);
  if (patch.collectionProfile !== undefined || patch.profileEffectiveAt !== undefined) {
    const next = changeProfile(
      { profile: site.collectionProfile, effectiveAt: site.profileEffectiveAt },
      {
        profile: patch.collectionProfile === undefined ? undefined : checkProfile(patch.collectionProfile),
        effectiveAt: checkInstant('profile effective-at', patch.profileEffectiveAt),
      },
      ctx.now().getTime(),
    );
    set.collection_profile = next.profile;
    set.profile_effective_at = next.effectiveAt;
  }
  const hostnames = patch.hostnames === undefined ? undefined : normalizeHostnames(patch.hostnames);
  const { scope, patterns } = await checkOwnershipRequest(ctx.db, site.workspaceId, patch);
  if (hostnames) await refuseTakenHostnames(ctx.db, site.workspaceId, hostnames, site.id);
  try {
    await ctx.db.transaction().execute(async (trx) => {
      // The site row first: on SQLite the transaction then holds the write lock before it reads anything.
      // (An update of the scope or patterns alone still writes it: the id, unchanged.)
      await trx
        .updateTable('sites')
        .set({ id, ...set })
        .where('id', '=', id)
        .execute();
      await claimInTransaction(
        trx,
        { workspaceId: site.workspaceId, siteId: id, hostnames, scope, patterns },
        ctx.now().toISOString(),
        ctx.random,
      );
      if (hostnames) await replaceHostnames(trx, id, hostnames);
    });
  } catch (err) {
    if (!isUniqueViolation(err) || !hostnames) throw err;
    await refuseTakenHostnames(ctx.db, site.workspaceId, hostnames, site.id);
    throw new CatalogError('CONFLICT', 'a hostname of this site was registered at the same time; try again');
  }
  return (await ctx.getSite(id))!;
}

export async function updateTenant(
  ctx: ManageContext,
  id: string,
  patch: { slug?: string; name?: string; status?: TenantStatus },
): Promise<Tenant> {
  needSomething('tenant', patch);
  const current = await ctx.db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirst();
  if (!current) throw notFound('tenant', id);
  const set: Partial<TenantsTable> = {};
  if (patch.slug !== undefined) set.slug = checkSlug(patch.slug);
  if (patch.name !== undefined) set.name = checkName('tenant name', patch.name);
  if (patch.status !== undefined) set.status = checkTenantStatus(patch.status);
  try {
    await ctx.db.updateTable('tenants').set(set).where('id', '=', id).execute();
  } catch (err) {
    if (isUniqueViolation(err)) throw new CatalogError('CONFLICT', `site ${current.site_id} already has a tenant with slug "${set.slug}"`);
    throw err;
  }
  return toTenant({ ...current, ...set });
}

export async function getGoal(ctx: ManageContext, id: string): Promise<Goal | null> {
  const row = await ctx.db.selectFrom('goals').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toGoal(row) : null;
}

export async function updateGoal(ctx: ManageContext, id: string, patch: GoalPatch): Promise<Goal> {
  needSomething('goal', patch);
  const current = await getGoal(ctx, id);
  if (!current) throw notFound('goal', id);
  const goal = checkGoal({
    name: patch.name ?? current.name,
    type: patch.type ?? current.type,
    intent: patch.intent ?? current.intent,
    pattern: patch.pattern ?? current.pattern,
    filters: patch.filters ?? current.filters,
  });
  // Report cache keys carry updatedAt: it must move even when two changes share a millisecond.
  const updatedAt = new Date(Math.max(ctx.now().getTime(), Date.parse(current.updatedAt) + 1)).toISOString();
  const set: Partial<GoalsTable> = {
    name: goal.name,
    type: goal.type,
    intent: goal.intent,
    pattern: goal.pattern,
    filters: JSON.stringify(goal.filters),
    updated_at: updatedAt,
  };
  await ctx.db.updateTable('goals').set(set).where('id', '=', id).execute();
  return { ...current, ...goal, updatedAt };
}

export async function deleteGoal(ctx: ManageContext, id: string): Promise<boolean> {
  const r = await ctx.db.deleteFrom('goals').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export async function getToken(ctx: ManageContext, id: string): Promise<Token | null> {
  const row = await ctx.db.selectFrom('tokens').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toToken(row) : null;
}

export async function listTokens(ctx: ManageContext, workspaceId: string): Promise<Token[]> {
  const rows = await ctx.db
    .selectFrom('tokens')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toToken);
}

export async function rotateToken(ctx: ManageContext, id: string, secretHash: string): Promise<Token> {
  if (!isSecretHash(secretHash)) throw new CatalogError('INVALID', 'secret hash must be 64 lower-case hex characters (sha256)');
  const rotatedAt = ctx.now().toISOString();
  let changed: UpdateResult;
  try {
    // Only a live token: a revoked one stays revoked (create a new token instead).
    changed = await ctx.db
      .updateTable('tokens')
      .set({ secret_hash: secretHash, rotated_at: rotatedAt })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
  } catch (err) {
    if (isUniqueViolation(err)) throw new CatalogError('CONFLICT', 'a token with this secret already exists');
    throw err;
  }
  const token = await getToken(ctx, id);
  if (!token) throw notFound('token', id);
  if (Number(changed.numUpdatedRows) === 0)
    throw new CatalogError(
      'INVALID',
      `token ${id} was revoked at ${token.revokedAt}; a revoked token cannot be rotated (create a new one)`,
    );
  return token;
}
