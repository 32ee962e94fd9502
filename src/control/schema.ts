// Table shapes of the control plane, shared by every dialect. Ids, ISO timestamps and JSON are text;
// counters are integers (bigint on PostgreSQL, where the driver may hand them back as strings,
// so readers convert with Number()).

export interface WorkspacesTable {
  id: string;
  name: string;
  plan: string;
  /** JSON object of ApiPolicy overrides ({} unless enterprise) */
  api_policy: string;
  created_at: string;
}

/** One change of a workspace's plan or api policy (and its creation, version 1). */
export interface WorkspacePlansTable {
  workspace_id: string;
  /** 1, 2, … per workspace, in the order of the changes */
  version: number;
  /** ISO 8601 instant from which this plan applies */
  effective_at: string;
  plan: string;
  /** JSON object, as workspaces.api_policy */
  api_policy: string;
}

export interface SitesTable {
  id: string;
  workspace_id: string;
  name: string;
  status: string;
  collection_profile: string;
  profile_effective_at: string | null;
  created_at: string;
  /** a registrable domain; null = none asked for */
  domain_scope: string | null;
  /** an IANA name (domain/canonical-time-zone.ts); 'UTC' for sites made before 008 */
  timezone: string;
}

export interface SiteHostnamesTable {
  /** lower case; unique across every workspace */
  hostname: string;
  site_id: string;
  /** keeps the order the hostnames were given in */
  ordinal: number;
}

/** A domain a workspace asked for, with its verification code. */
export interface WorkspaceDomainsTable {
  workspace_id: string;
  domain: string;
  /** 32 base62 characters */
  code: string;
  created_at: string;
}

/** The workspace that proved a domain (null: none yet); the row every claim inside it locks. */
export interface DomainOwnersTable {
  domain: string;
  workspace_id: string | null;
  verified_at: string | null;
  claims: number | string | bigint;
}

export interface SiteHostnamePatternsTable {
  workspace_id: string;
  /** the pattern without its leading `*.` */
  suffix: string;
  site_id: string;
  /** the registrable domain the pattern lies in */
  domain: string;
  ordinal: number;
}

export interface ReleasedHostnamesTable {
  site_id: string;
  hostname: string;
  released_at: string;
}

export interface TenantsTable {
  id: string;
  site_id: string;
  slug: string;
  name: string;
  status: string;
  created_at: string;
}

export interface GoalsTable {
  id: string;
  site_id: string;
  workspace_id: string;
  name: string;
  type: string;
  intent: string;
  pattern: string;
  /** JSON object of GoalFilters */
  filters: string;
  created_at: string;
  updated_at: string;
}

export interface FunnelsTable {
  id: string;
  site_id: string;
  workspace_id: string;
  name: string;
  /** JSON list of steps, {"page": pattern} or {"event": name} (funnels.ts stepJson) */
  steps: string;
  created_at: string;
  updated_at: string;
}

export interface ReportSubscriptionsTable {
  id: string;
  site_id: string;
  workspace_id: string;
  /** '' = the whole site */
  tenant_id: string;
  email: string;
  period: string;
  user_id: string | null;
  confirmed_at: string | null;
  confirm_secret_hash: string | null;
  confirm_expires_at: string | null;
  created_at: string;
}

export interface ReportDeliveriesTable {
  subscription_id: string;
  period_start: string;
  /** sending | retry | sent | failed */
  state: string;
  attempts: number;
  not_before: string;
  sent_at: string | null;
  last_error: string | null;
}

export interface TokensTable {
  id: string;
  workspace_id: string;
  secret_hash: string;
  /** what the token is for, as its people name it; null = unnamed */
  name: string | null;
  /** JSON array of scopes */
  scopes: string;
  /** JSON array of site ids; null = every site */
  site_ids: string | null;
  /** JSON array of tenant ids; null = every tenant */
  tenant_ids: string | null;
  revoked_at: string | null;
  /** last time the secret was replaced; null = never */
  rotated_at: string | null;
  created_at: string;
}

export interface SecretsTable {
  name: string;
  value: string;
  created_at: string;
}

export interface UsageTable {
  workspace_id: string;
  /** YYYY-MM */
  period: string;
  used: number | string | bigint;
  reserved: number | string | bigint;
  included: number | string | bigint;
  hard_cap: number | string | bigint;
}

/** One request's reserved units, leased: see usage-ledger.ts. */
export interface ReservationsTable {
  id: string;
  workspace_id: string;
  period: string;
  units: number | string | bigint;
  owner: string;
  owner_host: string;
  owner_pid: number;
  owner_started: string;
  expires_at: number | string | bigint;
}

export interface UsersTable {
  id: string;
  /** lower case: unique case-insensitively */
  email: string;
  name: string | null;
  /** PHC string (argon2id with its parameters); null until a password is chosen */
  password_hash: string | null;
  created_at: string;
}

export interface MembershipsTable {
  workspace_id: string;
  user_id: string;
  /** owner | admin | viewer */
  role: string;
  created_at: string;
}

export interface InvitationsTable {
  id: string;
  workspace_id: string;
  email: string;
  role: string;
  secret_hash: string;
  invited_by: string | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  revoked_at: string | null;
}

export interface UserLinksTable {
  secret_hash: string;
  user_id: string;
  /** reset | sign_in */
  purpose: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface SessionsTable {
  /** sha256 of the cookie's secret */
  id_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
  last_seen_at: string;
}

/** Two-factor sign-in of a person (012): the TOTP secret, sealed; enabled_at null while being turned on. */
export interface UserTwoFactorTable {
  user_id: string;
  /** v1.<iv>.<ciphertext and tag>, base64url: AES-256-GCM under the control-plane key `totp-secret-key` */
  secret_sealed: string;
  enabled_at: string | null;
  /** the 30-second step of the last code accepted (a code is used once) */
  last_step: number | string | bigint | null;
  created_at: string;
}

export interface RecoveryCodesTable {
  user_id: string;
  /** sha256 of the code as typed without spaces or dashes, lower case */
  code_hash: string;
  created_at: string;
  used_at: string | null;
}

export interface TwoFactorChallengesTable {
  /** sha256 of the challenge's secret */
  challenge_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface SignInFailuresTable {
  id: string;
  key_hash: string;
  /** epoch ms */
  at: number | string | bigint;
}

export interface EmbedKeysTable {
  id: string;
  workspace_id: string;
  /** JSON array of origins */
  origins: string;
  created_at: string;
  revoked_at: string | null;
}

export interface ShareLinksTable {
  id: string;
  workspace_id: string;
  site_id: string;
  tenant_id: string | null;
  /** sha256 of the slug */
  slug_hash: string;
  /** argon2id PHC string; null: no password */
  password_hash: string | null;
  expires_at: string | null;
  created_at: string;
  revoked_at: string | null;
}

/** A site removed from the catalog whose stored events the event store has still to delete. */
export interface PendingSiteDeletionsTable {
  site_id: string;
  workspace_id: string;
  requested_at: string;
}

/** Who runs a periodic job (the daily purge) until when (epoch ms). */
export interface JobLeasesTable {
  name: string;
  owner: string;
  expires_at: number | string | bigint;
}

export interface ControlDB {
  workspaces: WorkspacesTable;
  workspace_plans: WorkspacePlansTable;
  sites: SitesTable;
  site_hostnames: SiteHostnamesTable;
  tenants: TenantsTable;
  goals: GoalsTable;
  funnels: FunnelsTable;
  report_subscriptions: ReportSubscriptionsTable;
  report_deliveries: ReportDeliveriesTable;
  tokens: TokensTable;
  secrets: SecretsTable;
  usage: UsageTable;
  reservations: ReservationsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  invitations: InvitationsTable;
  user_links: UserLinksTable;
  sessions: SessionsTable;
  sign_in_failures: SignInFailuresTable;
  user_two_factor: UserTwoFactorTable;
  recovery_codes: RecoveryCodesTable;
  two_factor_challenges: TwoFactorChallengesTable;
  workspace_domains: WorkspaceDomainsTable;
  domain_owners: DomainOwnersTable;
  site_hostname_patterns: SiteHostnamePatternsTable;
  released_hostnames: ReleasedHostnamesTable;
  embed_keys: EmbedKeysTable;
  share_links: ShareLinksTable;
  pending_site_deletions: PendingSiteDeletionsTable;
  job_leases: JobLeasesTable;
}
