// The control plane's people: users, memberships, invitations, single-use links, sessions and the
// sign-in throttle's failures. Implementation: control/people-store.ts (Kysely over SQLite and
// PostgreSQL). Every secret arrives already hashed (sha256); the store never sees one.
import type { PlanId } from '../domain/plans.js';
import type { Role } from '../domain/roles.js';
import type { Workspace } from './catalog-store.js';

export interface User {
  id: string;
  /** lower case */
  email: string;
  name: string | null;
  /** false until the person chooses a password (a demo owner signs in by link) */
  hasPassword: boolean;
  createdAt: string;
}

export interface Member {
  user: User;
  role: Role;
  joinedAt: string;
}

export interface Membership {
  workspaceId: string;
  role: Role;
  joinedAt: string;
}

export interface Invitation {
  id: string;
  workspaceId: string;
  email: string;
  role: Role;
  /** null: made by the operator's command line */
  invitedBy: string | null;
  createdAt: string;
  expiresAt: string;
  acceptedAt: string | null;
  revokedAt: string | null;
}

export type LinkPurpose = 'reset' | 'sign_in';

/** A person's two-factor sign-in as stored: the sealed TOTP secret, and whether it is on. */
export interface TwoFactorRecord {
  /** sealed by the use-case (services/people/totp-seal.ts); the store never sees the secret */
  secretSealed: string;
  /** null while being turned on (a secret made, no code confirmed yet) */
  enabledAt: string | null;
  /** the 30-second step of the last code accepted; a code of this step or earlier is refused */
  lastStep: number | null;
  /** recovery codes not used yet */
  recoveryCodesLeft: number;
}

export interface NewInvitation {
  workspaceId: string;
  email: string;
  role: Role;
  secretHash: string;
  invitedBy: string | null;
  expiresAt: string;
  now: string;
  /** null = unlimited */
  seatLimit: number | null;
}

/**
 * Who accepts an invitation, decided by the caller before the store is asked: a new account with the
 * password it chose, or an existing account that proved it is itself (a session of it). An existing
 * account never gets a password, nor anything else, through an invitation.
 */
export type Joiner = { kind: 'new'; email: string; name: string | null; passwordHash: string } | { kind: 'existing'; userId: string };

export interface PeopleStore {
  /** CONFLICT when the email (case-insensitive) has an account; INVALID for a malformed email. */
  createUser(input: { email: string; name?: string | null; passwordHash?: string | null }): Promise<User>;
  getUser(id: string): Promise<User | null>;
  /** The user and the stored password hash (null: no password yet). */
  findUserByEmail(email: string): Promise<{ user: User; passwordHash: string | null } | null>;
  /** Replaces the password and ends every session of the user, in one transaction. NOT_FOUND. */
  setPassword(userId: string, passwordHash: string): Promise<void>;
  /** Sets (trimmed) or clears (null) the user's name; answers the user as it now is. NOT_FOUND, INVALID. */
  setUserName(userId: string, name: string | null): Promise<User>;

  /** A workspace and its owner's membership, in one transaction (a person creating a workspace). NOT_FOUND (user), INVALID. */
  createOwnedWorkspace(input: { name: string; plan: PlanId; ownerId: string }): Promise<Workspace>;
  /** Members of a workspace, owners first, then by email. */
  listMembers(workspaceId: string): Promise<Member[]>;
  /** The workspaces a user belongs to, oldest membership first. */
  listMemberships(userId: string): Promise<Membership[]>;
  getRole(workspaceId: string, userId: string): Promise<Role | null>;
  /** NOT_FOUND (workspace or user), CONFLICT (already a member). */
  addMember(input: { workspaceId: string; userId: string; role: Role }): Promise<void>;
  /** NOT_FOUND (not a member); CONFLICT when it would leave the workspace without an owner. */
  changeRole(workspaceId: string, userId: string, role: Role): Promise<void>;
  /** NOT_FOUND (not a member); CONFLICT when it would leave the workspace without an owner. */
  removeMember(workspaceId: string, userId: string): Promise<void>;
  /** Members plus open invitations (not accepted, revoked or expired at `now`). */
  seatsUsed(workspaceId: string, now: string): Promise<number>;

  /**
   * One transaction: refuses an email that is a member already (CONFLICT), revokes that email's
   * earlier open invitation to the workspace (a new one replaces it), then counts seats and refuses
   * past seatLimit (SEAT_LIMIT_REACHED, details limit and used). Nothing is written when it fails.
   */
  createInvitation(input: NewInvitation): Promise<Invitation>;
  /** Open invitations of a workspace (not accepted, revoked or expired at `now`), oldest first. */
  listInvitations(workspaceId: string, now: string): Promise<Invitation[]>;
  getInvitation(id: string): Promise<Invitation | null>;
  /** An open invitation with this secret hash at `now`, or null (unknown, used, revoked or expired). */
  findOpenInvitation(secretHash: string, now: string): Promise<Invitation | null>;
  /** Returns false when there is no such open invitation. */
  revokeInvitation(id: string, at: string): Promise<boolean>;
  /**
   * One transaction: uses the invitation (once: null when it is no longer open at `now`), creates
   * the new user, and adds the membership (a member already keeps the role they have). CONFLICT when a
   * new account's email was registered meanwhile; INVALID when an existing account's email is not the
   * invitation's. Nothing is written when it fails.
   */
  acceptInvitation(secretHash: string, now: string, joiner: Joiner): Promise<{ user: User; workspaceId: string } | null>;

  createLink(input: { secretHash: string; userId: string; purpose: LinkPurpose; expiresAt: string; now: string }): Promise<void>;
  /** Whether a link of this purpose is open at `now` (unused, unexpired); nothing is changed. */
  findOpenLink(input: { secretHash: string; purpose: LinkPurpose; now: string }): Promise<boolean>;
  /**
   * Uses a link once: the user it was made for, or null when it is unknown, of another purpose,
   * used or expired. With newPasswordHash, the password is replaced and every session of the user
   * ended in the same transaction.
   */
  redeemLink(input: { secretHash: string; purpose: LinkPurpose; now: string; newPasswordHash?: string }): Promise<User | null>;

  createSession(input: { idHash: string; userId: string; now: string; expiresAt: string }): Promise<void>;
  /** The live session's user and times, or null (unknown or expired at `now`). */
  findSession(idHash: string, now: string): Promise<{ user: User; expiresAt: string; lastSeenAt: string } | null>;
  /** Slides a live session's expiry. */
  touchSession(idHash: string, now: string, expiresAt: string): Promise<void>;
  deleteSession(idHash: string): Promise<void>;
  /** Ends every session of the user (on every device); answers how many ended. */
  deleteUserSessions(userId: string): Promise<number>;

  /** The person's two-factor record, or null (never begun, or turned off). */
  getTwoFactor(userId: string): Promise<TwoFactorRecord | null>;
  /** A new secret being turned on, replacing one not confirmed; CONFLICT when two-factor is on already. */
  beginTwoFactor(input: { userId: string; secretSealed: string; now: string }): Promise<void>;
  /**
   * One transaction: switches it on (only when `secretSealed` is still the one being turned on: false
   * otherwise), records `step` as used, stores the recovery codes, and ends every other session of the
   * person than `keepSession` (an id hash).
   */
  enableTwoFactor(input: {
    userId: string;
    secretSealed: string;
    step: number;
    recoveryCodeHashes: string[];
    keepSession: string;
    now: string;
  }): Promise<boolean>;
  /** Records a code's step as used, only if it is later than the last one (false: replayed, or off). */
  useTwoFactorStep(userId: string, step: number): Promise<boolean>;
  /** Hashes of the person's recovery codes not used yet. */
  unusedRecoveryCodes(userId: string): Promise<string[]>;
  /** Uses one recovery code once (false: unknown or used already). */
  useRecoveryCode(input: { userId: string; codeHash: string; now: string }): Promise<boolean>;
  /** Replaces every recovery code of a person who has two-factor on (false: it is off). */
  replaceRecoveryCodes(input: { userId: string; codeHashes: string[]; now: string }): Promise<boolean>;
  /** Turns it off: the secret, the recovery codes and open second steps go; false when it was not on. */
  disableTwoFactor(userId: string): Promise<boolean>;
  createTwoFactorChallenge(input: { challengeHash: string; userId: string; now: string; expiresAt: string }): Promise<void>;
  /** The user whose second step this is, while it is open (unused, unexpired) at `now`; nothing changes. */
  findTwoFactorChallenge(challengeHash: string, now: string): Promise<string | null>;
  /** Uses the second step once (false: used by a quicker request, or expired). */
  useTwoFactorChallenge(challengeHash: string, now: string): Promise<boolean>;

  /**
   * One attempt's claim under the sign-in throttle, atomic against other claims on the same keys:
   * `admit` sees the times (epoch ms, ascending) of each key's failures since sinceMs; when it answers
   * true, one failure is recorded under each key at atMs and their ids answered; else null and nothing
   * is recorded. Rows older than sinceMs are pruned.
   */
  claimSignInAttempt(input: {
    keyHashes: string[];
    sinceMs: number;
    atMs: number;
    admit: (seen: Map<string, number[]>) => boolean;
  }): Promise<string[] | null>;
  /** Takes back the failures of a claim whose attempt succeeded. */
  forgetSignInFailures(ids: readonly string[]): Promise<void>;
}
