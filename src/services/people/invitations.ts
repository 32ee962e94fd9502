// Invitations to a workspace: a single-use link valid 48 hours whose secret is stored hashed. Admins
// invite admins and viewers, owners anyone. Seats are members plus open invitations; the store counts
// them under a workspace lock and writes nothing past the plan's.
import { ManageError, invalidField } from '../../domain/manage-errors.js';
import { planLimitsFor } from '../../domain/plans.js';
import { INVITATION_LIFETIME_MS, passwordProblem } from '../../domain/people.js';
import { roleToInvite, type Role } from '../../domain/roles.js';
import { hashSecret } from '../../domain/tokens.js';
import type { Invitation, User } from '../../ports/people-store.js';
import { notFound, requireRole, type WorkspaceAccess } from '../manage/access.js';
import { linkUrl, looksLikeLinkSecret, newSecret, type PeopleDeps } from './people-deps.js';
import { INVALID_CREDENTIALS } from './sign-in.js';

export interface IssuedLink {
  url: string;
  expiresAt: string;
}

export async function invite(
  deps: Pick<PeopleDeps, 'people' | 'clock' | 'publicUrl' | 'random'>,
  access: WorkspaceAccess,
  input: { email: string; role: Role },
): Promise<IssuedLink & { invitation: Invitation }> {
  requireRole(access, roleToInvite(input.role));
  const now = deps.clock.now();
  const secret = newSecret(deps);
  const invitation = await deps.people.createInvitation({
    workspaceId: access.workspace.id,
    email: input.email,
    role: input.role,
    secretHash: hashSecret(secret),
    invitedBy: access.actor.kind === 'person' ? access.actor.user.id : null,
    expiresAt: new Date(now.getTime() + INVITATION_LIFETIME_MS).toISOString(),
    now: now.toISOString(),
    seatLimit: planLimitsFor(access.workspace.plan, access.workspace.apiPolicy).max_users,
  });
  return { url: linkUrl(deps.publicUrl, 'invite', secret), expiresAt: invitation.expiresAt, invitation };
}

export async function listInvitations(deps: Pick<PeopleDeps, 'people' | 'clock'>, access: WorkspaceAccess): Promise<Invitation[]> {
  requireRole(access, 'admin');
  return deps.people.listInvitations(access.workspace.id, deps.clock.now().toISOString());
}

/** Revoking needs the role that may make such an invitation. */
export async function revokeInvitation(deps: Pick<PeopleDeps, 'people' | 'clock'>, access: WorkspaceAccess, invitationId: string): Promise<void> {
  requireRole(access, 'admin');
  const inv = await deps.people.getInvitation(invitationId);
  const now = deps.clock.now().toISOString();
  const open = inv && inv.workspaceId === access.workspace.id && inv.acceptedAt === null && inv.revokedAt === null && inv.expiresAt > now;
  if (!open) throw notFound('invitation', invitationId);
  requireRole(access, roleToInvite(inv.role));
  if (!(await deps.people.revokeInvitation(invitationId, now))) throw notFound('invitation', invitationId);
}

const UNUSABLE = () => new ManageError('NOT_FOUND', 'This invitation link is unknown, used, revoked or expired: ask for a new one.');

/**
 * Accepting: a new person chooses their password (at least 10 characters); a person with an account
 * joins with its password (or chooses a first one, when it has none yet). Everything happens in one
 * transaction, or nothing does.
 */
export async function acceptInvitation(
  deps: Pick<PeopleDeps, 'people' | 'hasher' | 'clock'>,
  input: { secret: string; password: string; name?: string | null },
): Promise<User> {
  if (!looksLikeLinkSecret(input.secret)) throw UNUSABLE();
  const secretHash = hashSecret(input.secret);
  const now = deps.clock.now().toISOString();
  const inv = await deps.people.findOpenInvitation(secretHash, now);
  if (!inv) throw UNUSABLE();
  const existing = await deps.people.findUserByEmail(inv.email);
  let joined;
  if (existing?.passwordHash) {
    if (!(await deps.hasher.verify(existing.passwordHash, input.password))) throw INVALID_CREDENTIALS();
    joined = await deps.people.acceptInvitation(secretHash, now, { kind: 'existing', userId: existing.user.id });
  } else {
    const problem = passwordProblem(input.password);
    if (problem) throw invalidField('password', problem);
    const passwordHash = await deps.hasher.hash(input.password);
    joined = await deps.people.acceptInvitation(
      secretHash,
      now,
      existing ? { kind: 'existing', userId: existing.user.id, passwordHash } : { kind: 'new', email: inv.email, name: input.name ?? null, passwordHash },
    );
  }
  if (!joined) throw UNUSABLE();
  return joined.user;
}
