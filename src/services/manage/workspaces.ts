// Workspaces as a person sees them: the ones they belong to, with their role; one they create (on
// the free plan, themselves its owner: plans and their policies stay with the operator's command
// line); a rename by an owner; the month's API usage for admins and owners.
import { apiPolicyFor, planLimitsFor, type PlanId } from '../../domain/plans.js';
import type { Role } from '../../domain/roles.js';
import type { Workspace } from '../../ports/catalog-store.js';
import type { UsageLedger } from '../../ports/usage-ledger.js';
import type { User } from '../../ports/people-store.js';
import { currentUsage } from '../usage.js';
import { eventUsageOf } from '../lifecycle/event-usage.js';
import type { EventStore } from '../../ports/event-store.js';
import { requireRole, type ManageDeps, type WorkspaceAccess } from './access.js';

export const PERSON_WORKSPACE_PLAN: PlanId = 'free';

export async function workspacesOf(
  deps: Pick<ManageDeps, 'catalog' | 'people'>,
  user: User,
): Promise<{ workspace: Workspace; role: Role }[]> {
  const memberships = await deps.people.listMemberships(user.id);
  const out: { workspace: Workspace; role: Role }[] = [];
  for (const m of memberships) {
    const workspace = await deps.catalog.getWorkspace(m.workspaceId);
    if (workspace) out.push({ workspace, role: m.role });
  }
  return out;
}

export async function createWorkspaceFor(deps: Pick<ManageDeps, 'people'>, user: User, name: string): Promise<Workspace> {
  return deps.people.createOwnedWorkspace({ name, plan: PERSON_WORKSPACE_PLAN, ownerId: user.id });
}

export async function renameWorkspace(deps: Pick<ManageDeps, 'catalog'>, access: WorkspaceAccess, name: string): Promise<Workspace> {
  requireRole(access, 'owner');
  return deps.catalog.updateWorkspace(access.workspace.id, { name });
}

/**
 * This month's API units and, with an event store, its events against the plan's included events (counts kept
 * at commit: no scan of events).
 */
export async function workspaceUsage(
  deps: Pick<ManageDeps, 'clock' | 'catalog'> & { ledger: UsageLedger; events?: Pick<EventStore, 'eventCounts'> },
  access: WorkspaceAccess,
) {
  requireRole(access, 'admin');
  const policy = apiPolicyFor(access.workspace.plan, access.workspace.apiPolicy);
  const units = await currentUsage(deps.ledger, access.workspace.id, policy, deps.clock.now());
  if (!deps.events) return units;
  const e = await eventUsageOf({ ...deps, store: deps.events }, access.workspace, units.period);
  return { ...units, events_used: e.events_used, events_included: e.events_included, events_overage: e.events_overage };
}

/** The plan's seats and sites, for the settings' "used of limit". */
export function limitsOf(workspace: Workspace) {
  return planLimitsFor(workspace.plan, workspace.apiPolicy);
}
