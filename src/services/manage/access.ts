// Who may do what to which workspace: the one place the management use-cases learn the caller's
// role. The operator's command line acts with every right; a person with their role in the
// workspace. A workspace, site, tenant, goal or token the caller may not see is NOT_FOUND with the
// very message an unknown id gets, so no caller learns whether it exists.
import type { Clock } from '../../domain/clock.js';
import { ManageError } from '../../domain/manage-errors.js';
import { atLeast, type Role } from '../../domain/roles.js';
import type { CatalogStore, Funnel, Goal, Site, Tenant, Token, Workspace } from '../../ports/catalog-store.js';
import type { PeopleStore, User } from '../../ports/people-store.js';

export type Actor = { kind: 'operator' } | { kind: 'person'; user: User };
export const OPERATOR: Actor = Object.freeze({ kind: 'operator' });

export interface ManageDeps {
  catalog: CatalogStore;
  people: PeopleStore;
  clock: Clock;
}

export interface WorkspaceAccess {
  actor: Actor;
  workspace: Workspace;
  /** 'operator': the command line, above every role */
  role: Role | 'operator';
}

export function notFound(what: string, id: unknown): ManageError {
  return new ManageError('NOT_FOUND', `unknown ${what} "${String(id)}"`);
}

/** FORBIDDEN unless the access's role is at least `need`. */
export function requireRole(access: WorkspaceAccess, need: Role): void {
  if (access.role !== 'operator' && !atLeast(access.role, need))
    throw new ManageError('FORBIDDEN', `This needs the ${need} role in workspace ${access.workspace.id}; yours is ${access.role}.`);
}

/** The workspace as the actor may act on it; `hidden` names what a refusal of visibility reports (the site asked for, say). */
export async function workspaceAccess(
  deps: Pick<ManageDeps, 'catalog' | 'people'>,
  actor: Actor,
  workspaceId: string,
  need: Role,
  hidden: () => ManageError = () => notFound('workspace', workspaceId),
): Promise<WorkspaceAccess> {
  let role: Role | 'operator' = 'operator';
  if (actor.kind === 'person') {
    const r = await deps.people.getRole(workspaceId, actor.user.id);
    if (r === null) throw hidden();
    role = r;
  }
  const workspace = await deps.catalog.getWorkspace(workspaceId);
  if (!workspace) throw hidden();
  const access = { actor, workspace, role };
  requireRole(access, need);
  return access;
}

export async function siteAccess(
  deps: Pick<ManageDeps, 'catalog' | 'people'>,
  actor: Actor,
  siteId: string,
  need: Role,
): Promise<WorkspaceAccess & { site: Site }> {
  const site = await deps.catalog.getSite(siteId);
  const hidden = () => notFound('site', siteId);
  if (!site) throw hidden();
  return { ...(await workspaceAccess(deps, actor, site.workspaceId, need, hidden)), site };
}

export async function tenantAccess(
  deps: Pick<ManageDeps, 'catalog' | 'people'>,
  actor: Actor,
  tenantId: string,
  need: Role,
): Promise<WorkspaceAccess & { site: Site; tenant: Tenant }> {
  const hidden = () => notFound('tenant', tenantId);
  const tenant = await deps.catalog.getTenant(tenantId);
  const site = tenant ? await deps.catalog.getSite(tenant.siteId) : null;
  if (!tenant || !site) throw hidden();
  return { ...(await workspaceAccess(deps, actor, site.workspaceId, need, hidden)), site, tenant };
}

export async function goalAccess(
  deps: Pick<ManageDeps, 'catalog' | 'people'>,
  actor: Actor,
  goalId: string,
  need: Role,
): Promise<WorkspaceAccess & { goal: Goal }> {
  const hidden = () => notFound('goal', goalId);
  const goal = await deps.catalog.getGoal(goalId);
  if (!goal) throw hidden();
  return { ...(await workspaceAccess(deps, actor, goal.workspaceId, need, hidden)), goal };
}

export async function funnelAccess(
  deps: Pick<ManageDeps, 'catalog' | 'people'>,
  actor: Actor,
  funnelId: string,
  need: Role,
): Promise<WorkspaceAccess & { funnel: Funnel }> {
  const hidden = () => notFound('funnel', funnelId);
  const funnel = await deps.catalog.getFunnel(funnelId);
  if (!funnel) throw hidden();
  return { ...(await workspaceAccess(deps, actor, funnel.workspaceId, need, hidden)), funnel };
}

/** A token, when `workspaceId` is given only as one of that workspace's. */
export async function tokenAccess(
  deps: Pick<ManageDeps, 'catalog' | 'people'>,
  actor: Actor,
  tokenId: string,
  need: Role,
  workspaceId?: string,
): Promise<WorkspaceAccess & { token: Token }> {
  const hidden = () => notFound('token', tokenId);
  const token = await deps.catalog.getToken(tokenId);
  if (!token || (workspaceId !== undefined && token.workspaceId !== workspaceId)) throw hidden();
  return { ...(await workspaceAccess(deps, actor, token.workspaceId, need, hidden)), token };
}
