// The PeopleStore's credentials half: single-use links, sessions and the sign-in throttle's failures.
// Dialect-independent like people-store.ts, which delegates here.
import { sql, type Kysely, type Transaction } from 'kysely';
import { newId, type RandomBytes } from '../domain/tokens.js';
import type { LinkPurpose, User } from '../ports/people-store.js';
import { toUser } from './people-rows.js';
import { queryTemplate } from './query-template.js';
import type { ControlDB } from './schema.js';

export interface CredentialsContext {
  db: Kysely<ControlDB>;
  random: RandomBytes;
}

export async function createLink(
  ctx: CredentialsContext,
  input: { secretHash: string; userId: string; purpose: LinkPurpose; expiresAt: string; now: string },
): Promise<void> {
  await ctx.db
    .insertInto('user_links')
    .values({
      secret_hash: input.secretHash,
      user_id: input.userId,
      purpose: input.purpose,
      created_at: input.now,
      expires_at: input.expiresAt,
      used_at: null,
    })
    .execute();
}

export async function findOpenLink(
  ctx: CredentialsContext,
  input: { secretHash: string; purpose: LinkPurpose; now: string },
): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('user_links')
    .select('user_id')
    .where('secret_hash', '=', input.secretHash)
    .where('purpose', '=', input.purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', input.now)
    .executeTakeFirst();
  return row !== undefined;
}

export async function redeemLink(
  ctx: CredentialsContext,
  input: { secretHash: string; purpose: LinkPurpose; now: string; newPasswordHash?: string },
): Promise<User | null> {
  return ctx.db.transaction().execute(async (trx) => {
    // The update is the test: of two redemptions at once, one changes the row and the other nothing.
    const used = await trx
      .updateTable('user_links')
      .set({ used_at: input.now })
      .where('secret_hash', '=', input.secretHash)
      .where('purpose', '=', input.purpose)
      .where('used_at', 'is', null)
      .where('expires_at', '>', input.now)
      .executeTakeFirst();
    if (Number(used.numUpdatedRows) === 0) return null;
    const { user_id } = await trx
      .selectFrom('user_links')
      .select('user_id')
      .where('secret_hash', '=', input.secretHash)
      .executeTakeFirstOrThrow();
    if (input.newPasswordHash !== undefined) {
      await trx.updateTable('users').set({ password_hash: input.newPasswordHash }).where('id', '=', user_id).execute();
      await trx.deleteFrom('sessions').where('user_id', '=', user_id).execute();
      // a second step begun with the old password ends too
      await trx.deleteFrom('two_factor_challenges').where('user_id', '=', user_id).execute();
    }
    const row = await trx.selectFrom('users').selectAll().where('id', '=', user_id).executeTakeFirstOrThrow();
    return toUser(row);
  });
}

export async function createSession(
  ctx: CredentialsContext,
  input: { idHash: string; userId: string; now: string; expiresAt: string },
): Promise<void> {
  await ctx.db
    .insertInto('sessions')
    .values({ id_hash: input.idHash, user_id: input.userId, created_at: input.now, expires_at: input.expiresAt, last_seen_at: input.now })
    .execute();
}

/** The session lookup every management request makes, compiled once (query-template.ts). */
export function sessionLookup(db: Kysely<ControlDB>) {
  const q = queryTemplate(2, (idHash: string, now: string) =>
    db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select([
        'users.id',
        'users.email',
        'users.name',
        'users.password_hash',
        'users.created_at',
        'sessions.expires_at',
        'sessions.last_seen_at',
      ])
      .where('sessions.id_hash', '=', idHash)
      .where('sessions.expires_at', '>', now),
  );
  return async (idHash: string, now: string): Promise<{ user: User; expiresAt: string; lastSeenAt: string } | null> => {
    const row = (await db.executeQuery(q(idHash, now))).rows[0];
    return row ? { user: toUser(row), expiresAt: row.expires_at, lastSeenAt: row.last_seen_at } : null;
  };
}

export async function touchSession(ctx: CredentialsContext, idHash: string, now: string, expiresAt: string): Promise<void> {
  await ctx.db
    .updateTable('sessions')
    .set({ expires_at: expiresAt, last_seen_at: now })
    .where('id_hash', '=', idHash)
    .where('expires_at', '>', now)
    .execute();
}

export async function deleteSession(ctx: CredentialsContext, idHash: string): Promise<void> {
  await ctx.db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
}

/**
 * Holds the throttle keys until the transaction ends, so no other claim on them reads or records in
 * between. PostgreSQL: a transaction advisory lock per key (two-int form, apart from the bigint commit
 * and migration locks), taken in sorted order so two claims sharing keys cannot deadlock. SQLite:
 * nothing to do, Kysely runs one transaction at a time on the process's one connection.
 */
export type ThrottleKeyLock = (trx: Transaction<ControlDB>, sortedKeyHashes: readonly string[]) => Promise<void>;

const THROTTLE_LOCK_CLASS = 7381;

export const postgresThrottleKeyLock: ThrottleKeyLock = async (trx, keys) => {
  for (const key of keys) await sql`select pg_advisory_xact_lock(${THROTTLE_LOCK_CLASS}, hashtext(${key}))`.execute(trx);
};

export const sqliteThrottleKeyLock: ThrottleKeyLock = async () => {};

/**
 * One attempt's claim under the throttle, atomic against every other claim on the same keys: reads
 * each key's failures since sinceMs and, when `admit` says so, records one under each key at atMs
 * (answering their ids, to forget them if the attempt succeeds); otherwise records nothing (null).
 * Without the lock, attempts sent at once would each read the count before any recorded theirs, and
 * all pass a bound meant for a few.
 */
export async function claimSignInAttempt(
  ctx: CredentialsContext,
  lock: ThrottleKeyLock,
  input: { keyHashes: string[]; sinceMs: number; atMs: number; admit: (seen: Map<string, number[]>) => boolean },
): Promise<string[] | null> {
  const { keyHashes, sinceMs, atMs } = input;
  // pruned outside the transaction: its deletes touch other keys' rows, which the lock does not order
  await ctx.db.deleteFrom('sign_in_failures').where('at', '<', sinceMs).execute();
  return ctx.db.transaction().execute(async (trx) => {
    await lock(trx, [...new Set(keyHashes)].sort());
    const seen = await failuresSince(trx, keyHashes, sinceMs);
    if (!input.admit(seen)) return null;
    const rows = keyHashes.map((key_hash) => ({ id: newId('fail', ctx.random), key_hash, at: atMs }));
    if (rows.length) await trx.insertInto('sign_in_failures').values(rows).execute();
    return rows.map((r) => r.id);
  });
}

/** Takes back the failures a claim recorded (its attempt succeeded, or was not made). */
export async function forgetSignInFailures(ctx: CredentialsContext, ids: readonly string[]): Promise<void> {
  if (ids.length) await ctx.db.deleteFrom('sign_in_failures').where('id', 'in', ids).execute();
}

async function failuresSince(
  db: Kysely<ControlDB> | Transaction<ControlDB>,
  keyHashes: string[],
  sinceMs: number,
): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>(keyHashes.map((k) => [k, []]));
  if (keyHashes.length === 0) return out;
  const rows = await db
    .selectFrom('sign_in_failures')
    .select(['key_hash', 'at'])
    .where('key_hash', 'in', keyHashes)
    .where('at', '>=', sinceMs)
    .orderBy('at')
    .execute();
  for (const r of rows) out.get(r.key_hash)!.push(Number(r.at));
  return out;
}
