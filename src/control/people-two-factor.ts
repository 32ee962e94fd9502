// The PeopleStore's two-factor half (migration 012): the sealed TOTP secret and its last used step, the
// recovery codes and the second steps of sign-ins. Dialect-independent like people-store.ts, which
// delegates here. Every single use is a conditional UPDATE, so of two requests at once only one wins.
import type { Kysely } from 'kysely';
import { CatalogError } from '../ports/catalog-store.js';
import type { TwoFactorRecord } from '../ports/people-store.js';
import { isUniqueViolation } from './db-errors.js';
import type { ControlDB } from './schema.js';

type Db = Kysely<ControlDB>;

export async function getTwoFactor(db: Db, userId: string): Promise<TwoFactorRecord | null> {
  const row = await db.selectFrom('user_two_factor').selectAll().where('user_id', '=', userId).executeTakeFirst();
  if (!row) return null;
  const left = await db
    .selectFrom('recovery_codes')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return {
    secretSealed: row.secret_sealed,
    enabledAt: row.enabled_at,
    lastStep: row.last_step === null ? null : Number(row.last_step),
    recoveryCodesLeft: Number(left.n),
  };
}

const alreadyOn = () => new CatalogError('CONFLICT', 'two-factor sign-in is on already: turn it off first to set up another app');

export async function beginTwoFactor(db: Db, input: { userId: string; secretSealed: string; now: string }): Promise<void> {
  try {
    await db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('user_two_factor').select('enabled_at').where('user_id', '=', input.userId).executeTakeFirst();
      if (row?.enabled_at) throw alreadyOn();
      await trx.deleteFrom('user_two_factor').where('user_id', '=', input.userId).execute();
      await trx
        .insertInto('user_two_factor')
        .values({ user_id: input.userId, secret_sealed: input.secretSealed, enabled_at: null, last_step: null, created_at: input.now })
        .execute();
    });
  } catch (err) {
    // another request began at the same moment: one of them holds the row
    if (isUniqueViolation(err)) throw alreadyOn();
    throw err;
  }
}

export async function enableTwoFactor(
  db: Db,
  input: { userId: string; secretSealed: string; step: number; recoveryCodeHashes: string[]; keepSession: string; now: string },
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const r = await trx
      .updateTable('user_two_factor')
      .set({ enabled_at: input.now, last_step: input.step })
      .where('user_id', '=', input.userId)
      .where('secret_sealed', '=', input.secretSealed)
      .where('enabled_at', 'is', null)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) return false;
    await insertCodes(trx, input.userId, input.recoveryCodeHashes, input.now);
    // whoever else held a session (a stolen password, say) must now sign in with the code
    await trx.deleteFrom('sessions').where('user_id', '=', input.userId).where('id_hash', '!=', input.keepSession).execute();
    return true;
  });
}

export async function useTwoFactorStep(db: Db, userId: string, step: number): Promise<boolean> {
  const r = await db
    .updateTable('user_two_factor')
    .set({ last_step: step })
    .where('user_id', '=', userId)
    .where('enabled_at', 'is not', null)
    .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)]))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function unusedRecoveryCodes(db: Db, userId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('recovery_codes')
    .select('code_hash')
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .execute();
  return rows.map((r) => r.code_hash);
}

export async function useRecoveryCode(db: Db, input: { userId: string; codeHash: string; now: string }): Promise<boolean> {
  const r = await db
    .updateTable('recovery_codes')
    .set({ used_at: input.now })
    .where('user_id', '=', input.userId)
    .where('code_hash', '=', input.codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function replaceRecoveryCodes(db: Db, input: { userId: string; codeHashes: string[]; now: string }): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const on = await trx
      .selectFrom('user_two_factor')
      .select('user_id')
      .where('user_id', '=', input.userId)
      .where('enabled_at', 'is not', null)
      .executeTakeFirst();
    if (!on) return false;
    await insertCodes(trx, input.userId, input.codeHashes, input.now);
    return true;
  });
}

/** The person's recovery codes become these (the earlier ones, used or not, stop working). */
async function insertCodes(trx: Db, userId: string, hashes: string[], now: string): Promise<void> {
  await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  if (hashes.length > 0)
    await trx
      .insertInto('recovery_codes')
      .values(hashes.map((code_hash) => ({ user_id: userId, code_hash, created_at: now, used_at: null })))
      .execute();
}

export async function disableTwoFactor(db: Db, userId: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('user_two_factor').select('enabled_at').where('user_id', '=', userId).executeTakeFirst();
    await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
    await trx.deleteFrom('two_factor_challenges').where('user_id', '=', userId).execute();
    await trx.deleteFrom('user_two_factor').where('user_id', '=', userId).execute();
    return row?.enabled_at != null;
  });
}

export async function createTwoFactorChallenge(
  db: Db,
  input: { challengeHash: string; userId: string; now: string; expiresAt: string },
): Promise<void> {
  // the expired ones of every person go as new ones come: the table holds five minutes' worth
  await db.deleteFrom('two_factor_challenges').where('expires_at', '<=', input.now).execute();
  await db
    .insertInto('two_factor_challenges')
    .values({
      challenge_hash: input.challengeHash,
      user_id: input.userId,
      created_at: input.now,
      expires_at: input.expiresAt,
      used_at: null,
    })
    .execute();
}

export async function findTwoFactorChallenge(db: Db, challengeHash: string, now: string): Promise<string | null> {
  const row = await db
    .selectFrom('two_factor_challenges')
    .select('user_id')
    .where('challenge_hash', '=', challengeHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row?.user_id ?? null;
}

export async function useTwoFactorChallenge(db: Db, challengeHash: string, now: string): Promise<boolean> {
  const r = await db
    .updateTable('two_factor_challenges')
    .set({ used_at: now })
    .where('challenge_hash', '=', challengeHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Open second steps of a person end with a new password and with signing out everywhere. */
export async function endChallenges(db: Db, userId: string): Promise<void> {
  await db.deleteFrom('two_factor_challenges').where('user_id', '=', userId).execute();
}
