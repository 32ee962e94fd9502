// The catalog's records in the API's snake_case: what the catalog commands print with --json and the
// management API answers. A token never carries its secret or the secret's hash (the Token record
// has neither).
import { dashboardPolicy } from '../../domain/dashboard-policy.js';
import { apiPolicyFor, hasApiAccess, planLimitsFor } from '../../domain/plans.js';
import type { Role } from '../../domain/roles.js';
import { stepJson } from '../../domain/funnels.js';
import type { DomainProof, Funnel, Goal, Site, SiteOwnership, Tenant, Token, Workspace } from '../../ports/catalog-store.js';
import type { SiteVerification } from '../ownership/verify-site.js';
import type { Invitation, Member, User } from '../../ports/people-store.js';

export const workspaceJson = (w: Workspace) => ({
  workspace_id: w.id,
  name: w.name,
  plan: w.plan,
  api_policy: w.apiPolicy,
  created_at: w.createdAt,
});

export const workspaceSummaryJson = (w: Workspace, role: Role) => ({ workspace_id: w.id, name: w.name, plan: w.plan, role });

/** The plan's dashboard policy as the page reads it: what the dashboard's reads of the workspace may ask. */
export function dashboardRulesJson(w: Workspace) {
  const policy = dashboardPolicy(w);
  return {
    surfaces: [...policy.surfaces],
    hourly: policy.hourly,
    csv: policy.csv,
    retention_days: policy.retention_days,
    max_range_days: policy.max_range_days,
    row_limit: policy.max_breakdown_limit,
  };
}

/** What the plan opens beyond the dashboard: API tokens, and its seats and sites (null: unlimited). */
export function planJson(w: Workspace) {
  const api = apiPolicyFor(w.plan, w.apiPolicy);
  const limits = planLimitsFor(w.plan, w.apiPolicy);
  return { api_tokens: hasApiAccess(api) && api.can_create_tokens, max_users: limits.max_users, max_sites: limits.max_sites };
}

export const siteJson = (s: Site) => ({
  site_id: s.id,
  workspace_id: s.workspaceId,
  name: s.name,
  hostnames: s.hostnames,
  status: s.status,
  collection_profile: s.collectionProfile,
  collection_profile_effective_at: s.profileEffectiveAt,
  created_at: s.createdAt,
  timezone: s.timezone,
});

/** The DNS record that proves a domain. */
export const verificationJson = (d: DomainProof) => ({ name: d.recordName, type: 'TXT' as const, value: d.recordValue });

/** What a site asks for beyond its exact hostnames, and where each proof stands. */
export const siteOwnershipJson = (o: SiteOwnership) => ({
  domain_scope: o.domainScope,
  hostname_patterns: o.hostnamePatterns,
  domains: o.domains.map((d) => ({
    domain: d.domain,
    verified: d.verifiedAt !== null,
    verified_at: d.verifiedAt,
    claimed_by_another_workspace: d.claimedElsewhere,
    verification: verificationJson(d),
  })),
  released_hostnames: o.releasedHostnames.map((r) => ({ hostname: r.hostname, released_at: r.releasedAt })),
});

/** A site as `site list` prints it and the management API answers it: the record and its ownership. */
export const siteViewJson = (v: { site: Site; ownership: SiteOwnership }) => ({ ...siteJson(v.site), ...siteOwnershipJson(v.ownership) });

export const siteVerificationJson = (v: SiteVerification) => ({
  site_id: v.siteId,
  domain: v.domain,
  verified: v.verified,
  verified_at: v.verifiedAt,
});

export const tenantJson = (t: Tenant) => ({
  tenant_id: t.id,
  site_id: t.siteId,
  slug: t.slug,
  name: t.name,
  status: t.status,
  created_at: t.createdAt,
});

export const goalJson = (g: Goal) => ({
  goal_id: g.id,
  site_id: g.siteId,
  name: g.name,
  type: g.type,
  intent: g.intent,
  pattern: g.pattern,
  filters: g.filters,
  created_at: g.createdAt,
  updated_at: g.updatedAt,
});

export const funnelJson = (f: Funnel) => ({
  funnel_id: f.id,
  site_id: f.siteId,
  name: f.name,
  steps: f.steps.map(stepJson),
  created_at: f.createdAt,
  updated_at: f.updatedAt,
});

export const tokenJson = (t: Token) => ({
  token_id: t.id,
  workspace_id: t.workspaceId,
  name: t.name,
  scopes: t.scopes,
  site_ids: t.siteIds,
  tenant_ids: t.tenantIds,
  created_at: t.createdAt,
  rotated_at: t.rotatedAt,
  revoked_at: t.revokedAt,
});

export const userJson = (u: User) => ({ user_id: u.id, email: u.email, name: u.name });

export const memberJson = (m: Member) => ({
  user_id: m.user.id,
  email: m.user.email,
  name: m.user.name,
  role: m.role,
  joined_at: m.joinedAt,
});

export const invitationJson = (i: Invitation) => ({
  invitation_id: i.id,
  email: i.email,
  role: i.role,
  invited_by: i.invitedBy,
  created_at: i.createdAt,
  expires_at: i.expiresAt,
});
