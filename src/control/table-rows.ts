// Every table of the control plane, and the rows each holds (`footfall stats`: what a restored backup
// must hold again). The same Kysely query on SQLite and PostgreSQL.
import { sql, type Kysely } from 'kysely';
import type { ControlDB } from './schema.js';

/** Every table of ours: a table added to ControlDB fails to compile until listed. */
const TABLE_SET: Record<keyof ControlDB, true> = {
  workspaces: true,
  workspace_plans: true,
  sites: true,
  site_hostnames: true,
  tenants: true,
  goals: true,
  funnels: true,
  report_subscriptions: true,
  report_deliveries: true,
  tokens: true,
  secrets: true,
  usage: true,
  reservations: true,
  users: true,
  memberships: true,
  invitations: true,
  user_links: true,
  sessions: true,
  sign_in_failures: true,
  user_two_factor: true,
  recovery_codes: true,
  two_factor_challenges: true,
  workspace_domains: true,
  domain_owners: true,
  site_hostname_patterns: true,
  released_hostnames: true,
  embed_keys: true,
  share_links: true,
  pending_site_deletions: true,
  job_leases: true,
};
export const CONTROL_TABLES = Object.keys(TABLE_SET).sort() as (keyof ControlDB)[];

/** Rows per table, in one statement. */
export async function countRows(db: Kysely<ControlDB>): Promise<Record<string, number>> {
  const { rows } = await sql<Record<string, number | string | bigint>>`select ${sql.join(
    CONTROL_TABLES.map((t) => sql`(select count(*) from ${sql.table(t)}) as ${sql.ref(t)}`),
  )}`.execute(db);
  return Object.fromEntries(CONTROL_TABLES.map((t) => [t, Number(rows[0]?.[t] ?? 0)]));
}
