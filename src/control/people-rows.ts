// Rows of the people tables as the PeopleStore port's records.
import type { Selectable } from 'kysely';
import type { Role } from '../domain/roles.js';
import type { Invitation, User } from '../ports/people-store.js';
import type { InvitationsTable, UsersTable } from './schema.js';

export function toUser(r: Pick<Selectable<UsersTable>, 'id' | 'email' | 'name' | 'password_hash' | 'created_at'>): User {
  return { id: r.id, email: r.email, name: r.name, hasPassword: r.password_hash !== null, createdAt: r.created_at };
}

export function toInvitation(r: Selectable<InvitationsTable>): Invitation {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    email: r.email,
    role: r.role as Role,
    invitedBy: r.invited_by,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    acceptedAt: r.accepted_at,
    revokedAt: r.revoked_at,
  };
}
