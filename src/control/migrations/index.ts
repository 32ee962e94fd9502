// Every migration, in order, compiled into the code (no directory scan at run time, so it works
// the same from tsx, a bundle or an installed package). Add new ones as NNN_name.ts here.
import type { Migration, MigrationProvider } from 'kysely';
import * as m001 from './001_initial.js';
import * as m002 from './002_leases_and_rotation.js';
import * as m003 from './003_people.js';
import * as m004 from './004_domain_scopes_and_patterns.js';
import * as m005 from './005_embeds_and_shares.js';
import * as m006 from './006_workspace_plan_history.js';
import * as m007 from './007_data_lifecycle.js';
import * as m008 from './008_site_timezones.js';
import * as m009 from './009_funnels.js';
import * as m010 from './010_report_subscriptions.js';
import * as m011 from './011_token_names.js';
import * as m012 from './012_two_factor.js';

const MIGRATIONS: Record<string, Migration> = {
  '001_initial': m001,
  '002_leases_and_rotation': m002,
  '003_people': m003,
  '004_domain_scopes_and_patterns': m004,
  '005_embeds_and_shares': m005,
  '006_workspace_plan_history': m006,
  '007_data_lifecycle': m007,
  '008_site_timezones': m008,
  '009_funnels': m009,
  '010_report_subscriptions': m010,
  '011_token_names': m011,
  '012_two_factor': m012,
};

/** The migrations this code knows, by name. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(MIGRATIONS);

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => MIGRATIONS,
};
