// The control plane's catalog: workspaces, sites, tenants, goals, saved funnels and tokens.
// Implementations: control/ (Kysely over SQLite, later PostgreSQL).
import type { TokenScope } from '../domain/access.js';
import type { FunnelStep } from '../domain/funnels.js';
import type { ApiPolicyOverrides, PlanId, Profile } from '../domain/plans.js';

/** A plan and api policy a workspace has from effectiveAt on (until the next change). */
export interface PlanChange {
  effectiveAt: string;
  plan: PlanId;
  apiPolicy: ApiPolicyOverrides;
}

export interface Workspace {
  id: string;
  name: string;
  plan: PlanId;
  /** enterprise only: overrides of product.api fields and the plan limits (max_users, max_sites); {} otherwise */
  apiPolicy: ApiPolicyOverrides;
  createdAt: string;
}

export type SiteStatus = 'ACTIVE' | 'SUSPENDED';
export interface Site {
  id: string;
  workspaceId: string;
  name: string;
  hostnames: string[];
  status: SiteStatus;
  collectionProfile: Profile;
  /** ISO instant from which collectionProfile applies; null = since the site began */
  profileEffectiveAt: string | null;
  createdAt: string;
  /** IANA name the dashboard and the query API count the site's days in (docs/decisions/site-timezone.md) */
  timezone: string;
}

export type TenantStatus = 'ACTIVE' | 'INACTIVE';
export interface Tenant {
  id: string;
  siteId: string;
  slug: string;
  name: string;
  status: TenantStatus;
  createdAt: string;
}

export type GoalType = 'PAGEVIEW_MATCH' | 'EVENT_MATCH';
export const GOAL_INTENTS = ['lead', 'signup', 'purchase', 'download', 'outbound', 'content', 'custom'] as const;
export type GoalIntent = (typeof GOAL_INTENTS)[number];
export interface GoalFilters {
  action_id?: string;
  action_target_host?: string;
  form_id?: string;
  form_action_path?: string;
}
export interface Goal {
  id: string;
  siteId: string;
  workspaceId: string;
  name: string;
  type: GoalType;
  intent: GoalIntent;
  pattern: string;
  filters: GoalFilters;
  createdAt: string;
  updatedAt: string;
}

/** A saved funnel of a site (docs/decisions/funnels.md): its ordered steps, 2 to 8. */
export interface Funnel {
  id: string;
  siteId: string;
  workspaceId: string;
  name: string;
  steps: FunnelStep[];
  createdAt: string;
  updatedAt: string;
}

export interface Token {
  id: string;
  workspaceId: string;
  /** what it is for, as its people name it ("Data warehouse sync"); null = unnamed */
  name: string | null;
  scopes: TokenScope[];
  /** null = every site of the workspace */
  siteIds: string[] | null;
  /** null = every tenant */
  tenantIds: string[] | null;
  revokedAt: string | null;
  /** when the secret was last replaced (token rotate); null = never */
  rotatedAt: string | null;
  createdAt: string;
}

/** The TXT record a workspace publishes to prove a domain, and whether it has (docs/decisions/site-ownership.md). */
export interface DomainProof {
  /** a registrable domain the workspace asked for */
  domain: string;
  /** `_footfall.<domain>`, type TXT */
  recordName: string;
  /** `footfall-verification=<code>`: the code is fixed per (workspace, domain) */
  recordValue: string;
  /** null until proven */
  verifiedAt: string | null;
  /** another workspace has proven this domain, so this one cannot */
  claimedElsewhere: boolean;
}

/** An exact hostname the site lost to another workspace's proven domain scope: it no longer collects. */
export interface ReleasedHostname {
  hostname: string;
  releasedAt: string;
}

/** What a site asks for beyond its exact hostnames, and where that stands. */
export interface SiteOwnership {
  siteId: string;
  workspaceId: string;
  /** a registrable domain covering itself and every subdomain; null = none asked for */
  domainScope: string | null;
  /** `*.<suffix>`, in the order given */
  hostnamePatterns: string[];
  /** the workspace's proof of each domain the scope and the patterns lie in, the scope's first */
  domains: DomainProof[];
  /** oldest first */
  releasedHostnames: ReleasedHostname[];
}

/** Fields `site update` may change (CatalogStore.updateSite). */
export interface SitePatch {
  name?: string;
  hostnames?: string[];
  status?: SiteStatus;
  collectionProfile?: Profile;
  profileEffectiveAt?: string;
  /** null removes the scope */
  domainScope?: string | null;
  /** replaces the patterns; [] removes them */
  hostnamePatterns?: string[];
  /** an IANA name; applies to every read from then on, older days included (events are stored in UTC) */
  timezone?: string;
}

/** Fields `goal update` may change; filters, when given, replace the goal's filters whole. */
export type GoalPatch = Partial<Pick<Goal, 'name' | 'type' | 'intent' | 'pattern' | 'filters'>>;

/** A site to register: its workspace, name, hostnames and collection profile, and how it claims its domain. */
export interface NewSite {
  workspaceId: string;
  name: string;
  hostnames: string[];
  collectionProfile: Profile;
  profileEffectiveAt?: string | null;
  status?: SiteStatus;
  domainScope?: string | null;
  hostnamePatterns?: string[];
  /** an IANA name; default UTC */
  timezone?: string;
}

/** Workspaces and their plans over time. */
export interface WorkspaceCatalog {
  createWorkspace(input: { name: string; plan: PlanId; apiPolicy?: ApiPolicyOverrides }): Promise<Workspace>;
  getWorkspace(id: string): Promise<Workspace | null>;
  /** Every workspace, oldest first. */
  listWorkspaces(): Promise<Workspace[]>;
  /**
   * Changes name, plan or api policy. apiPolicy replaces the overrides whole and needs the
   * enterprise plan; a move off enterprise drops them. NOT_FOUND / INVALID.
   */
  updateWorkspace(id: string, patch: { name?: string; plan?: PlanId; apiPolicy?: ApiPolicyOverrides }): Promise<Workspace>;
  /** The workspace's plans over time, oldest first: the one it was created with, then every change ([] when unknown). */
  planHistory(workspaceId: string): Promise<PlanChange[]>;
}

/** Sites, their hostnames, domain scopes and patterns, and the proof of their domains. */
export interface SiteCatalog {
  /**
   * Throws CatalogError INVALID_SITE_HOSTNAME / SITE_SCOPE_ALREADY_CLAIMED / NOT_FOUND (workspace) /
   * SITE_LIMIT_REACHED (the plan's max_sites, details limit and used), and with a domain scope or
   * hostname patterns SITE_SCOPE_NOT_ALLOWED / HOSTNAME_PATTERN_OUT_OF_SCOPE /
   * SITE_DNS_VERIFICATION_UNAVAILABLE. A pattern must lie inside a domain the workspace has asked for
   * (by this site's scope or another site's).
   */
  createSite(input: NewSite): Promise<Site>;
  getSite(id: string): Promise<Site | null>;
  /**
   * The site that collects for `hostname` (case-insensitive): one of whose exact hostnames it is, a
   * leading `www.` ignored on either side (when two sites hold `x` and `www.x`, the one named exactly);
   * else the site with the longest proven hostname pattern matching it; else the site whose proven
   * domain scope covers it. Null when none does.
   */
  findSiteByHostname(hostname: string): Promise<Site | null>;
  /** Null when no such site exists. */
  getSiteOwnership(siteId: string): Promise<SiteOwnership | null>;
  /** Every site of the workspace, in listSites order. */
  listSiteOwnership(workspaceId: string): Promise<SiteOwnership[]>;
  /**
   * Records that the workspace proved `domain` (the caller has seen the TXT record), once: a second
   * call keeps the first time. Every exact hostname inside the domain that another workspace
   * registered is released from its site. SITE_SCOPE_ALREADY_CLAIMED when another workspace proved it.
   */
  markDomainVerified(workspaceId: string, domain: string): Promise<{ verifiedAt: string }>;
  listSites(workspaceId: string): Promise<Site[]>;
  /**
   * Changes name, status, hostnames (the new list replaces the old, under the same ownership rules
   * as createSite), the domain scope (null removes it), the hostname patterns (the new list replaces
   * the old; [] removes them) or the collection profile. A profile change is prospective: it applies from
   * profileEffectiveAt (default now), which may not be in the past; an effective-at alone moves a
   * switch that has not happened yet (docs/decisions/operating.md). An unknown time zone is INVALID
   * (details field timezone), as in createSite. NOT_FOUND / INVALID / CONFLICT /
   * INVALID_SITE_HOSTNAME / SITE_SCOPE_ALREADY_CLAIMED.
   */
  updateSite(id: string, patch: SitePatch): Promise<Site>;
}

/** The tenants of a site. */
export interface TenantCatalog {
  createTenant(input: { siteId: string; slug: string; name: string; status?: TenantStatus }): Promise<Tenant>;
  getTenant(id: string): Promise<Tenant | null>;
  listTenants(siteId: string): Promise<Tenant[]>;
  /** NOT_FOUND / INVALID / CONFLICT (slug taken in the site). */
  updateTenant(id: string, patch: { slug?: string; name?: string; status?: TenantStatus }): Promise<Tenant>;
}

/** The goals of a site. */
export interface GoalCatalog {
  createGoal(input: Omit<Goal, 'id' | 'workspaceId' | 'createdAt' | 'updatedAt'>): Promise<Goal>;
  listGoals(siteId: string): Promise<Goal[]>;
  getGoal(id: string): Promise<Goal | null>;
  /** The result is checked like a new goal; updatedAt always moves forward. NOT_FOUND / INVALID. */
  updateGoal(id: string, patch: GoalPatch): Promise<Goal>;
  /** Returns false when no such goal exists. */
  deleteGoal(id: string): Promise<boolean>;
}

/** The saved funnels of a site. */
export interface FunnelCatalog {
  /** NOT_FOUND (site) / INVALID (name, steps). */
  createFunnel(input: { siteId: string; name: string; steps: FunnelStep[] }): Promise<Funnel>;
  /** oldest first */
  listFunnels(siteId: string): Promise<Funnel[]>;
  getFunnel(id: string): Promise<Funnel | null>;
  /** The result is checked like a new funnel; updatedAt always moves forward. NOT_FOUND / INVALID. */
  updateFunnel(id: string, patch: { name?: string; steps?: FunnelStep[] }): Promise<Funnel>;
  /** Returns false when no such funnel exists. */
  deleteFunnel(id: string): Promise<boolean>;
}

/** API tokens: stored as the sha256 of their secret, read on every request. */
export interface TokenCatalog {
  /** Stores only sha256(secret). */
  createToken(input: {
    workspaceId: string;
    scopes: TokenScope[];
    siteIds?: string[] | null;
    tenantIds?: string[] | null;
    secretHash: string;
    /** trimmed; absent or null: unnamed. INVALID when blank or too long */
    name?: string | null;
  }): Promise<Token>;
  findTokenByHash(secretHash: string): Promise<Token | null>;
  /**
   * The token of this hash and its workspace, read together (one statement): authentication's one read.
   * With `siteId`, also the site of that id when it belongs to the token's workspace (`site` null when
   * there is none such, foreign or unknown alike): the request's site, read in the same statement.
   */
  findTokenWithWorkspace(secretHash: string): Promise<{ token: Token; workspace: Workspace } | null>;
  findTokenWithWorkspace(secretHash: string, siteId: string): Promise<{ token: Token; workspace: Workspace; site: Site | null } | null>;
  getToken(id: string): Promise<Token | null>;
  /** Tokens of a workspace, oldest first, revoked ones included. Never exposes a secret or its hash. */
  listTokens(workspaceId: string): Promise<Token[]>;
  /**
   * Replaces the token's secret: same id, scopes and allowlists; the old secret stops working at
   * once. NOT_FOUND / INVALID (revoked) / CONFLICT (hash taken).
   */
  rotateToken(id: string, secretHash: string): Promise<Token>;
  /** Returns false when no such token exists. */
  revokeToken(id: string, at: string): Promise<boolean>;
  /**
   * Names a token (trimmed), or with null leaves it unnamed; a revoked token may be renamed too.
   * NOT_FOUND / INVALID (blank or too long a name).
   */
  renameToken(id: string, name: string | null): Promise<Token>;
}

/**
 * The catalog of the control plane (implementation: control/catalog-store.ts over Kysely, SQLite and
 * PostgreSQL), the seams of its implementation as parts: a use-case that needs one part takes that
 * part (or a Pick of it) rather than the whole.
 */
export interface CatalogStore extends WorkspaceCatalog, SiteCatalog, TenantCatalog, GoalCatalog, FunnelCatalog, TokenCatalog {
  /** A secret kept in the control plane (created on first use), e.g. the visitor-key salt. */
  getOrCreateSecret(name: string): Promise<string>;

  /** Cheap liveness check used by /healthz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Errors of catalog writes; codes are the spec's control-plane codes or plain validation codes. */
export class CatalogError extends Error {
  constructor(
    readonly code:
      | 'INVALID_SITE_HOSTNAME'
      | 'SITE_SCOPE_NOT_ALLOWED'
      | 'HOSTNAME_PATTERN_OUT_OF_SCOPE'
      | 'SITE_SCOPE_ALREADY_CLAIMED'
      | 'SITE_DNS_VERIFICATION_FAILED'
      | 'SITE_DNS_VERIFICATION_UNAVAILABLE'
      | 'NOT_FOUND'
      | 'CONFLICT'
      | 'INVALID'
      | 'SITE_LIMIT_REACHED'
      | 'SEAT_LIMIT_REACHED',
    message: string,
    /** what a client may act on (the error envelope's `details`, e.g. limit and used); never names another workspace */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'CatalogError';
  }
}
