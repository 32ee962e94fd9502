// PeopleStore over Kysely. Dialect-independent: the same queries run on SQLite and PostgreSQL. Writers
// that count before they add (seats) or must keep an owner lock the workspace row first
// (workspace-lock.ts), so concurrent requests cannot both pass a check that only one may pass.
import { randomBytes } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { systemClock, type Clock } from '../domain/clock.js';
import { normalizeEmail } from '../domain/people.js';
import type { PlanId } from '../domain/plans.js';
import { ROLES, type Role } from '../domain/roles.js';
import { newId, type RandomBytes } from '../domain/tokens.js';
import { CatalogError, type Workspace } from '../ports/catalog-store.js';
import type { Invitation, Joiner, Member, Membership, NewInvitation, PeopleStore, User } from '../ports/people-store.js';
import { isUniqueViolation } from './db-errors.js';
import { toInvitation, toUser } from './people-rows.js';
import * as creds from './people-sessions.js';
import * as twoFactor from './people-two-factor.js';
import type { ControlDB } from './schema.js';
import { checkName, checkOneOf, checkPlan } from './validation.js';
import { toWorkspace } from './catalog-rows.js';
import { lockWorkspace } from './workspace-lock.js';
import { insertWorkspace } from './workspace-plans.js';

type Db = Kysely<ControlDB> | Transaction<ControlDB>;

const ROLE_ORDER: Record<Role, number> = { owner: 0, admin: 1, viewer: 2 };

function checkEmail(input: unknown): string {
  const email = normalizeEmail(input);
  if (email === null) throw new CatalogError('INVALID', 'email must be an email address (name@domain), at most 254 characters');
  return email;
}

const checkRole = (v: unknown): Role => checkOneOf('role', v, ROLES);

function lastOwner(workspaceId: string): CatalogError {
  return new CatalogError('CONFLICT', `workspace ${workspaceId} must keep an owner: make another member owner first`);
}

export class KyselyPeopleStore implements PeopleStore {
  private readonly creds: creds.CredentialsContext;
  private readonly lookupSession: ReturnType<typeof creds.sessionLookup>;

  private readonly clock: Clock;

  constructor(
    private readonly db: Kysely<ControlDB>,
    opts: { clock?: Clock; random?: RandomBytes } = {},
    private readonly throttleLock: creds.ThrottleKeyLock = creds.sqliteThrottleKeyLock,
  ) {
    this.clock = opts.clock ?? systemClock;
    this.creds = { db, random: opts.random ?? randomBytes };
    this.lookupSession = creds.sessionLookup(db);
  }

  async createUser(input: { email: string; name?: string | null; passwordHash?: string | null }): Promise<User> {
    return insertUser(
      this.db,
      this.creds.random,
      checkEmail(input.email),
      input.name ?? null,
      input.passwordHash ?? null,
      this.clock.now().toISOString(),
    );
  }

  async getUser(id: string): Promise<User | null> {
    const row = await this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toUser(row) : null;
  }

  async findUserByEmail(email: string): Promise<{ user: User; passwordHash: string | null } | null> {
    const normalized = normalizeEmail(email);
    if (normalized === null) return null;
    const row = await this.db.selectFrom('users').selectAll().where('email', '=', normalized).executeTakeFirst();
    return row ? { user: toUser(row), passwordHash: row.password_hash } : null;
  }

  async setPassword(userId: string, passwordHash: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const r = await trx.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) throw new CatalogError('NOT_FOUND', `unknown user "${userId}"`);
      await trx.deleteFrom('sessions').where('user_id', '=', userId).execute();
      await twoFactor.endChallenges(trx, userId);
    });
  }

  async setUserName(userId: string, name: string | null): Promise<User> {
    const value = name === null ? null : checkName('name', name);
    const r = await this.db.updateTable('users').set({ name: value }).where('id', '=', userId).executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) throw new CatalogError('NOT_FOUND', `unknown user "${userId}"`);
    const row = await this.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow();
    return toUser(row);
  }

  async deleteUserSessions(userId: string): Promise<number> {
    await twoFactor.endChallenges(this.db, userId);
    const r = await this.db.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async createOwnedWorkspace(input: { name: string; plan: PlanId; ownerId: string }): Promise<Workspace> {
    const now = this.clock.now().toISOString();
    const row = {
      id: newId('ws', this.creds.random),
      name: checkName('workspace name', input.name),
      plan: checkPlan(input.plan),
      api_policy: '{}',
      created_at: now,
    };
    await this.db.transaction().execute(async (trx) => {
      if (!(await trx.selectFrom('users').select('id').where('id', '=', input.ownerId).executeTakeFirst()))
        throw new CatalogError('NOT_FOUND', `unknown user "${input.ownerId}"`);
      await insertWorkspace(trx, row);
      await trx
        .insertInto('memberships')
        .values({ workspace_id: row.id, user_id: input.ownerId, role: 'owner', created_at: now })
        .execute();
    });
    return toWorkspace(row);
  }

  async listMembers(workspaceId: string): Promise<Member[]> {
    const rows = await this.db
      .selectFrom('memberships')
      .innerJoin('users', 'users.id', 'memberships.user_id')
      .select([
        'users.id',
        'users.email',
        'users.name',
        'users.password_hash',
        'users.created_at',
        'memberships.role',
        'memberships.created_at as joined_at',
      ])
      .where('memberships.workspace_id', '=', workspaceId)
      .execute();
    return rows
      .map((r) => ({ user: toUser(r), role: r.role as Role, joinedAt: r.joined_at }))
      .sort((a, b) => ROLE_ORDER[a.role] - ROLE_ORDER[b.role] || (a.user.email < b.user.email ? -1 : a.user.email > b.user.email ? 1 : 0));
  }

  async listMemberships(userId: string): Promise<Membership[]> {
    const rows = await this.db
      .selectFrom('memberships')
      .select(['workspace_id', 'role', 'created_at'])
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .orderBy('workspace_id')
      .execute();
    return rows.map((r) => ({ workspaceId: r.workspace_id, role: r.role as Role, joinedAt: r.created_at }));
  }

  async getRole(workspaceId: string, userId: string): Promise<Role | null> {
    const row = await this.db
      .selectFrom('memberships')
      .select('role')
      .where('workspace_id', '=', workspaceId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row ? (row.role as Role) : null;
  }

  async addMember(input: { workspaceId: string; userId: string; role: Role }): Promise<void> {
    const role = checkRole(input.role);
    if (!(await this.db.selectFrom('workspaces').select('id').where('id', '=', input.workspaceId).executeTakeFirst()))
      throw new CatalogError('NOT_FOUND', `unknown workspace "${input.workspaceId}"`);
    if (!(await this.getUser(input.userId))) throw new CatalogError('NOT_FOUND', `unknown user "${input.userId}"`);
    try {
      await this.db
        .insertInto('memberships')
        .values({ workspace_id: input.workspaceId, user_id: input.userId, role, created_at: this.clock.now().toISOString() })
        .execute();
    } catch (err) {
      if (isUniqueViolation(err))
        throw new CatalogError('CONFLICT', `user ${input.userId} is a member of workspace ${input.workspaceId} already`);
      throw err;
    }
  }

  async changeRole(workspaceId: string, userId: string, role: Role): Promise<void> {
    const next = checkRole(role);
    await this.db.transaction().execute(async (trx) => {
      const current = await this.memberRoleLocked(trx, workspaceId, userId);
      if (current === 'owner' && next !== 'owner' && (await ownerCount(trx, workspaceId)) <= 1) throw lastOwner(workspaceId);
      await trx
        .updateTable('memberships')
        .set({ role: next })
        .where('workspace_id', '=', workspaceId)
        .where('user_id', '=', userId)
        .execute();
    });
  }

  async removeMember(workspaceId: string, userId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const current = await this.memberRoleLocked(trx, workspaceId, userId);
      if (current === 'owner' && (await ownerCount(trx, workspaceId)) <= 1) throw lastOwner(workspaceId);
      await trx.deleteFrom('memberships').where('workspace_id', '=', workspaceId).where('user_id', '=', userId).execute();
    });
  }

  /** Locks the workspace, then reads the member's role; NOT_FOUND when not a member. */
  private async memberRoleLocked(trx: Transaction<ControlDB>, workspaceId: string, userId: string): Promise<Role> {
    await lockWorkspace(trx, workspaceId);
    const row = await trx
      .selectFrom('memberships')
      .select('role')
      .where('workspace_id', '=', workspaceId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!row) throw new CatalogError('NOT_FOUND', `unknown member "${userId}" of workspace ${workspaceId}`);
    return row.role as Role;
  }

  seatsUsed(workspaceId: string, now: string): Promise<number> {
    return seatsOf(this.db, workspaceId, now);
  }

  async createInvitation(input: NewInvitation): Promise<Invitation> {
    const email = checkEmail(input.email);
    const role = checkRole(input.role);
    return this.db.transaction().execute(async (trx) => {
      if (!(await lockWorkspace(trx, input.workspaceId))) throw new CatalogError('NOT_FOUND', `unknown workspace "${input.workspaceId}"`);
      const member = await trx
        .selectFrom('memberships')
        .innerJoin('users', 'users.id', 'memberships.user_id')
        .select('users.id')
        .where('memberships.workspace_id', '=', input.workspaceId)
        .where('users.email', '=', email)
        .executeTakeFirst();
      if (member) throw new CatalogError('CONFLICT', `${email} is a member of workspace ${input.workspaceId} already`);
      // A new invitation of the same person replaces the open one (its link stops working).
      await openInvitations(trx.updateTable('invitations').set({ revoked_at: input.now }), input.now)
        .where('workspace_id', '=', input.workspaceId)
        .where('email', '=', email)
        .execute();
      const used = await seatsOf(trx, input.workspaceId, input.now);
      if (input.seatLimit !== null && used >= input.seatLimit)
        throw new CatalogError(
          'SEAT_LIMIT_REACHED',
          `workspace ${input.workspaceId} uses all ${input.seatLimit} seats of its plan (members and open invitations)`,
          {
            limit: input.seatLimit,
            used,
          },
        );
      const row = {
        id: newId('inv', this.creds.random),
        workspace_id: input.workspaceId,
        email,
        role,
        secret_hash: input.secretHash,
        invited_by: input.invitedBy,
        created_at: input.now,
        expires_at: input.expiresAt,
        accepted_at: null,
        revoked_at: null,
      };
      await trx.insertInto('invitations').values(row).execute();
      return toInvitation(row);
    });
  }

  async listInvitations(workspaceId: string, now: string): Promise<Invitation[]> {
    const rows = await openInvitations(this.db.selectFrom('invitations').selectAll(), now)
      .where('workspace_id', '=', workspaceId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toInvitation);
  }

  async getInvitation(id: string): Promise<Invitation | null> {
    const row = await this.db.selectFrom('invitations').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toInvitation(row) : null;
  }

  async findOpenInvitation(secretHash: string, now: string): Promise<Invitation | null> {
    const row = await openInvitations(this.db.selectFrom('invitations').selectAll(), now)
      .where('secret_hash', '=', secretHash)
      .executeTakeFirst();
    return row ? toInvitation(row) : null;
  }

  async revokeInvitation(id: string, at: string): Promise<boolean> {
    const r = await openInvitations(this.db.updateTable('invitations').set({ revoked_at: at }), at)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async acceptInvitation(secretHash: string, now: string, joiner: Joiner): Promise<{ user: User; workspaceId: string } | null> {
    return this.db.transaction().execute(async (trx) => {
      // The update is the test: of two acceptances at once, one changes the row and the other nothing.
      const used = await openInvitations(trx.updateTable('invitations').set({ accepted_at: now }), now)
        .where('secret_hash', '=', secretHash)
        .executeTakeFirst();
      if (Number(used.numUpdatedRows) === 0) return null;
      const inv = await trx.selectFrom('invitations').selectAll().where('secret_hash', '=', secretHash).executeTakeFirstOrThrow();
      let user: User;
      if (joiner.kind === 'new') {
        user = await insertUser(trx, this.creds.random, checkEmail(joiner.email), joiner.name, joiner.passwordHash, now);
      } else {
        // An existing account joins as itself only: the caller proved it is that person (a session of
        // the account), and the invitation's email must be the account's. No password is set here.
        const row = await trx.selectFrom('users').selectAll().where('id', '=', joiner.userId).executeTakeFirst();
        if (!row) throw new CatalogError('NOT_FOUND', `unknown user "${joiner.userId}"`);
        if (row.email !== inv.email) throw new CatalogError('INVALID', `the invitation is for ${inv.email}, not for this account`);
        user = toUser(row);
      }
      const member = await trx
        .selectFrom('memberships')
        .select('role')
        .where('workspace_id', '=', inv.workspace_id)
        .where('user_id', '=', user.id)
        .executeTakeFirst();
      if (!member)
        await trx
          .insertInto('memberships')
          .values({ workspace_id: inv.workspace_id, user_id: user.id, role: inv.role, created_at: now })
          .execute();
      return { user, workspaceId: inv.workspace_id };
    });
  }

  createLink: PeopleStore['createLink'] = (input) => creds.createLink(this.creds, input);
  findOpenLink: PeopleStore['findOpenLink'] = (input) => creds.findOpenLink(this.creds, input);
  redeemLink: PeopleStore['redeemLink'] = (input) => creds.redeemLink(this.creds, input);
  createSession: PeopleStore['createSession'] = (input) => creds.createSession(this.creds, input);
  findSession: PeopleStore['findSession'] = (idHash, now) => this.lookupSession(idHash, now);
  touchSession: PeopleStore['touchSession'] = (idHash, now, expiresAt) => creds.touchSession(this.creds, idHash, now, expiresAt);
  deleteSession: PeopleStore['deleteSession'] = (idHash) => creds.deleteSession(this.creds, idHash);
  claimSignInAttempt: PeopleStore['claimSignInAttempt'] = (input) => creds.claimSignInAttempt(this.creds, this.throttleLock, input);
  forgetSignInFailures: PeopleStore['forgetSignInFailures'] = (ids) => creds.forgetSignInFailures(this.creds, ids);
  getTwoFactor: PeopleStore['getTwoFactor'] = (userId) => twoFactor.getTwoFactor(this.db, userId);
  beginTwoFactor: PeopleStore['beginTwoFactor'] = (input) => twoFactor.beginTwoFactor(this.db, input);
  enableTwoFactor: PeopleStore['enableTwoFactor'] = (input) => twoFactor.enableTwoFactor(this.db, input);
  useTwoFactorStep: PeopleStore['useTwoFactorStep'] = (userId, step) => twoFactor.useTwoFactorStep(this.db, userId, step);
  unusedRecoveryCodes: PeopleStore['unusedRecoveryCodes'] = (userId) => twoFactor.unusedRecoveryCodes(this.db, userId);
  useRecoveryCode: PeopleStore['useRecoveryCode'] = (input) => twoFactor.useRecoveryCode(this.db, input);
  replaceRecoveryCodes: PeopleStore['replaceRecoveryCodes'] = (input) => twoFactor.replaceRecoveryCodes(this.db, input);
  disableTwoFactor: PeopleStore['disableTwoFactor'] = (userId) => twoFactor.disableTwoFactor(this.db, userId);
  createTwoFactorChallenge: PeopleStore['createTwoFactorChallenge'] = (input) => twoFactor.createTwoFactorChallenge(this.db, input);
  findTwoFactorChallenge: PeopleStore['findTwoFactorChallenge'] = (hash, now) => twoFactor.findTwoFactorChallenge(this.db, hash, now);
  useTwoFactorChallenge: PeopleStore['useTwoFactorChallenge'] = (hash, now) => twoFactor.useTwoFactorChallenge(this.db, hash, now);
}

async function insertUser(
  db: Db,
  random: RandomBytes,
  email: string,
  name: string | null,
  passwordHash: string | null,
  now: string,
): Promise<User> {
  const row = {
    id: newId('usr', random),
    email,
    name: name === null ? null : checkName('name', name),
    password_hash: passwordHash,
    created_at: now,
  };
  try {
    await db.insertInto('users').values(row).execute();
  } catch (err) {
    if (isUniqueViolation(err)) throw new CatalogError('CONFLICT', `an account with the email ${email} exists already`);
    throw err;
  }
  return toUser(row);
}

/** Narrows a query of invitations to the open ones at `now`. */
function openInvitations<Q extends { where(column: 'accepted_at' | 'revoked_at' | 'expires_at', op: 'is' | '>', value: string | null): Q }>(
  q: Q,
  now: string,
): Q {
  return q.where('accepted_at', 'is', null).where('revoked_at', 'is', null).where('expires_at', '>', now);
}

async function ownerCount(db: Db, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function seatsOf(db: Db, workspaceId: string, now: string): Promise<number> {
  const members = await db
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  const open = await openInvitations(
    db.selectFrom('invitations').select((eb) => eb.fn.countAll<number | string>().as('n')),
    now,
  )
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(members.n) + Number(open.n);
}
