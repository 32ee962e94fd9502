// Sites of a workspace: everyone lists them; admins and owners create and change them (a profile
// switch is prospective, as on the command line) and verify their domain scope by DNS.
import { Type } from '@sinclair/typebox';
import { siteVerificationJson, siteViewJson, verificationJson } from '../../../services/manage/records-json.js';
import { createSite, listSites, scopeProof, updateSite, verifySiteDomain } from '../../../services/manage/sites.js';
import { deleteSiteConfirmed } from '../../../services/manage/site-deletion.js';
import { defineAppRoute } from '../define-app-route.js';
import { CreatedSiteSchema, Name, ProfileSchema, SiteRecordSchema, SiteStatusSchema, SiteVerificationSchema } from '../schemas.js';
import { SiteParams, WorkspaceParams } from './params.js';

const TAG = 'Sites';
const Host = Type.String({ minLength: 1, maxLength: 253 });
const Hostnames = Type.Array(Host, { minItems: 1, maxItems: 100 });
const EffectiveAt = Type.String({ maxLength: 64, description: 'ISO 8601 instant with a time zone; now or later' });
const DomainScope = Type.Union([Host, Type.Null()], {
  description:
    'A registrable domain (not a subdomain, a public suffix or an IP address): the site collects for it and every subdomain once verified',
});
const HostnamePatterns = Type.Array(Host, {
  maxItems: 100,
  description:
    "*.<suffix>, each inside a domain this workspace has asked for (this scope or another site's); collects once that domain is verified",
});
// No length or pattern here: every wrong zone gets the store's one refusal, which says what to send.
const TimeZone = Type.String({
  description:
    "An IANA time zone name (Europe/Berlin, Asia/Kathmandu, UTC) the dashboard and the query API are to count the site's days in; not an offset. Default UTC. Anything else: 422 INVALID_PARAMS, details field timezone",
  examples: ['Europe/Berlin'],
});
const OWNERSHIP_ERRORS =
  'Refusals: INVALID_SITE_HOSTNAME, SITE_SCOPE_NOT_ALLOWED, HOSTNAME_PATTERN_OUT_OF_SCOPE, SITE_DNS_VERIFICATION_UNAVAILABLE (422, details field and value), SITE_SCOPE_ALREADY_CLAIMED (409, details domain).';

export const siteRoutes = [
  defineAppRoute({
    method: 'GET',
    url: '/workspaces/:workspace_id/sites',
    operationId: 'listSites',
    summary: 'Sites of the workspace, with their domain scope, patterns and proofs',
    tag: TAG,
    auth: 'session',
    guard: { on: 'workspace', need: 'viewer' },
    params: WorkspaceParams,
    status: 200,
    response: Type.Object({ sites: Type.Array(SiteRecordSchema) }),
    handler: async ({ deps, access }) => ({ sites: (await listSites(deps, access)).map(siteViewJson) }),
  }),
  defineAppRoute({
    method: 'POST',
    url: '/workspaces/:workspace_id/sites',
    operationId: 'createSite',
    summary: 'Register a site and its hostnames (admins and owners)',
    description: `Past the plan's sites (free 3, starter 10, pro 50, enterprise max_sites): 409 SITE_LIMIT_REACHED (details limit and used). ${OWNERSHIP_ERRORS}`,
    tag: TAG,
    auth: 'session',
    guard: { on: 'workspace', need: 'admin' },
    params: WorkspaceParams,
    body: Type.Object(
      {
        name: Name,
        hostnames: Hostnames,
        collection_profile: ProfileSchema,
        collection_profile_effective_at: Type.Optional(EffectiveAt),
        status: Type.Optional(SiteStatusSchema),
        domain_scope: Type.Optional(DomainScope),
        hostname_patterns: Type.Optional(HostnamePatterns),
        timezone: Type.Optional(TimeZone),
      },
      { additionalProperties: false },
    ),
    status: 201,
    response: CreatedSiteSchema,
    errors: [409],
    handler: async ({ deps, access, body }) => {
      const view = await createSite(deps, access, {
        name: body.name,
        hostnames: body.hostnames,
        collectionProfile: body.collection_profile,
        profileEffectiveAt: body.collection_profile_effective_at,
        status: body.status,
        domainScope: body.domain_scope,
        hostnamePatterns: body.hostname_patterns,
        timezone: body.timezone,
      });
      const proof = scopeProof(view.ownership);
      return { ...siteViewJson(view), ...(proof ? { verification: verificationJson(proof) } : {}) };
    },
  }),
  defineAppRoute({
    method: 'PATCH',
    url: '/sites/:site_id',
    operationId: 'updateSite',
    summary: "Change a site's name, hostnames, domain scope, patterns, status, collection profile or time zone (admins and owners)",
    description: `hostnames and hostname_patterns replace their lists whole ([] removes every pattern); domain_scope null removes the scope. A profile switch applies from now, or from a later collection_profile_effective_at, never to older events. ${OWNERSHIP_ERRORS}`,
    tag: TAG,
    auth: 'session',
    guard: { on: 'site', need: 'admin' },
    params: SiteParams,
    body: Type.Object(
      {
        name: Type.Optional(Name),
        hostnames: Type.Optional(Hostnames),
        status: Type.Optional(SiteStatusSchema),
        collection_profile: Type.Optional(ProfileSchema),
        collection_profile_effective_at: Type.Optional(EffectiveAt),
        domain_scope: Type.Optional(DomainScope),
        hostname_patterns: Type.Optional(HostnamePatterns),
        timezone: Type.Optional(TimeZone),
      },
      { additionalProperties: false },
    ),
    status: 200,
    response: SiteRecordSchema,
    errors: [404, 409],
    handler: async ({ deps, access, body }) =>
      siteViewJson(
        await updateSite(deps, access, {
          name: body.name,
          hostnames: body.hostnames,
          status: body.status,
          collectionProfile: body.collection_profile,
          profileEffectiveAt: body.collection_profile_effective_at,
          domainScope: body.domain_scope,
          hostnamePatterns: body.hostname_patterns,
          timezone: body.timezone,
        }),
      ),
  }),
  defineAppRoute({
    method: 'POST',
    url: '/sites/:site_id/verify',
    operationId: 'verifySite',
    summary: "Look the site's TXT record up now and, if it holds the workspace's code, verify its domain scope (admins and owners)",
    description:
      "The proof is the workspace's: every site of the workspace inside the domain collects from then on, and exact hostnames other workspaces registered inside it are released from their sites. " +
      'A domain already verified answers at once. Refusals: SITE_DNS_VERIFICATION_FAILED (422, details record_name, expected_value, found and retryable: true when no resolver answered, so trying again later may pass), ' +
      'SITE_DNS_VERIFICATION_UNAVAILABLE (422: the site has no domain scope), SITE_SCOPE_ALREADY_CLAIMED (409: another workspace verified the domain first).',
    tag: TAG,
    auth: 'session',
    guard: { on: 'site', need: 'admin' },
    params: SiteParams,
    status: 200,
    response: SiteVerificationSchema,
    errors: [409, 422],
    handler: async ({ deps, access }) => siteVerificationJson(await verifySiteDomain(deps, access)),
  }),
  defineAppRoute({
    method: 'DELETE',
    url: '/sites/:site_id',
    operationId: 'deleteSite',
    summary: 'Delete a site, its tenants, goals and every stored event, session and rollup of it (owners)',
    description:
      "The body's name must be the site's name, typed as confirmation (else 422 INVALID_PARAMS, details field name, and nothing is deleted). " +
      'From then on the site id answers like an unknown one (404 here, 403 on /v1), its hostnames can be registered again, and a token restricted to it reads nothing. ' +
      'If removing the stored events does not finish (500), the site is gone already and the next daily purge, or this request again, finishes it.',
    tag: TAG,
    auth: 'session',
    guard: { on: 'site', need: 'owner' },
    params: SiteParams,
    body: Type.Object(
      { name: Type.String({ maxLength: 200, description: "The site's name, typed as confirmation" }) },
      { additionalProperties: false },
    ),
    status: 200,
    response: Type.Object(
      {
        site_id: Type.String(),
        events_removed: Type.Integer({ description: 'Stored events removed' }),
        days_removed: Type.Integer({ description: 'UTC days that held them' }),
      },
      { title: 'DeletedSite' },
    ),
    errors: [404, 422],
    handler: async ({ deps, access, body }) => {
      const d = await deleteSiteConfirmed(deps, access, body.name);
      return { site_id: d.siteId, events_removed: d.removed.events, days_removed: d.removed.days };
    },
  }),
];
