// Two-factor sign-in with an authenticator app (docs/decisions/people.md, "Two-factor sign-in"). New tables:
// nothing existing changes, and an account without a row here signs in as before.
// - user_two_factor: one row per person who began or finished turning it on. The TOTP secret is sealed
//   (AES-256-GCM under a control-plane key, bound to the user id); enabled_at is null until the person
//   confirmed a code, and last_step is the 30-second step of the last code accepted, so a code is used once.
// - recovery_codes: sha256 of each single-use code; used_at once spent.
// - two_factor_challenges: the second step of a sign-in whose password was right, sha256 of its secret,
//   five minutes, used once.
// Portable types only, like 001.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('user_two_factor')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id'))
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('enabled_at', 'text')
    .addColumn('last_step', 'bigint')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('recovery_codes')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addPrimaryKeyConstraint('recovery_codes_pk', ['user_id', 'code_hash'])
    .execute();
  await db.schema
    .createTable('two_factor_challenges')
    .addColumn('challenge_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('two_factor_challenges_user_idx').on('two_factor_challenges').column('user_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['two_factor_challenges', 'recovery_codes', 'user_two_factor']) await db.schema.dropTable(t).execute();
}
