// Roles of a person in a workspace. Pure.
export const ROLES = ['owner', 'admin', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { viewer: 1, admin: 2, owner: 3 };

/** True when `role` may do what `need` may (owner > admin > viewer). */
export function atLeast(role: Role, need: Role): boolean {
  return RANK[role] >= RANK[need];
}

/** Inviting or revoking an invitation of `target` needs that role itself, and admin at least: admins invite admins and viewers, owners anyone. */
export function roleToInvite(target: Role): Role {
  return target === 'owner' ? 'owner' : 'admin';
}
