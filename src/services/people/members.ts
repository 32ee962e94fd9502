// Members of a workspace: admins and owners see them and the seats in use; owners change roles and
// remove members (the store keeps one owner at least).
import { planLimitsFor } from '../../domain/plans.js';
import type { Role } from '../../domain/roles.js';
import type { Invitation, Member } from '../../ports/people-store.js';
import { notFound, requireRole, type ManageDeps, type WorkspaceAccess } from '../manage/access.js';

export interface MemberList {
  members: Member[];
  seats: { used: number; limit: number | null };
}

export async function listMembers(deps: Pick<ManageDeps, 'people' | 'clock'>, access: WorkspaceAccess): Promise<MemberList> {
  requireRole(access, 'admin');
  const [members, used] = await Promise.all([
    deps.people.listMembers(access.workspace.id),
    deps.people.seatsUsed(access.workspace.id, deps.clock.now().toISOString()),
  ]);
  return { members, seats: { used, limit: planLimitsFor(access.workspace.plan, access.workspace.apiPolicy).max_users } };
}

/** A member of this workspace by user id; anyone else is as unknown as a missing id. */
async function memberOf(deps: Pick<ManageDeps, 'people'>, access: WorkspaceAccess, userId: string): Promise<Member> {
  const member = (await deps.people.listMembers(access.workspace.id)).find((m) => m.user.id === userId);
  if (!member) throw notFound('member', userId);
  return member;
}

export async function changeRole(deps: Pick<ManageDeps, 'people'>, access: WorkspaceAccess, userId: string, role: Role): Promise<Member> {
  requireRole(access, 'owner');
  const member = await memberOf(deps, access, userId);
  await deps.people.changeRole(access.workspace.id, userId, role);
  return { ...member, role };
}

export async function removeMember(deps: Pick<ManageDeps, 'people'>, access: WorkspaceAccess, userId: string): Promise<void> {
  requireRole(access, 'owner');
  await memberOf(deps, access, userId);
  await deps.people.removeMember(access.workspace.id, userId);
}

/**
 * `footfall user remove --email`: the member with that email leaves; without one, that email's open
 * invitation is revoked. NOT_FOUND when there is neither.
 */
export async function removeByEmail(
  deps: Pick<ManageDeps, 'people' | 'clock'>,
  access: WorkspaceAccess,
  email: string,
): Promise<{ removed: 'member'; member: Member } | { removed: 'invitation'; invitation: Invitation }> {
  requireRole(access, 'owner');
  const wanted = email.trim().toLowerCase();
  const member = (await deps.people.listMembers(access.workspace.id)).find((m) => m.user.email === wanted);
  if (member) {
    await deps.people.removeMember(access.workspace.id, member.user.id);
    return { removed: 'member', member };
  }
  const now = deps.clock.now().toISOString();
  const invitation = (await deps.people.listInvitations(access.workspace.id, now)).find((i) => i.email === wanted);
  if (invitation && (await deps.people.revokeInvitation(invitation.id, now))) return { removed: 'invitation', invitation };
  throw notFound('member or invitation', email);
}
