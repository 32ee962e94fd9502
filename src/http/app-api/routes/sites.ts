// Sites of a workspace: everyone lists them; admins and owners create and change them (a profile
// switch is prospective, as on the command line).
import { Type } from '@sinclair/typebox';
import { siteJson } from '../../../services/manage/records-json.js';
import { createSite, listSites, updateSite } from '../../../services/manage/sites.js';
import { defineAppRoute } from '../define-app-route.js';
import { Name, ProfileSchema, SiteRecordSchema, SiteStatusSchema } from '../schemas.js';
import { SiteParams, WorkspaceParams } from './params.js';

const TAG = 'Sites';
const Hostnames = Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { minItems: 1, maxItems: 100 });
const EffectiveAt = Type.String({ maxLength: 64, description: 'ISO 8601 instant with a time zone; now or later' });

export const siteRoutes = [
  defineAppRoute({
    method: 'GET',
    url: '/workspaces/:workspace_id/sites',
    operationId: 'listSites',
    summary: 'Sites of the workspace',
    tag: TAG,
    auth: 'session',
    guard: { on: 'workspace', need: 'viewer' },
    params: WorkspaceParams,
    status: 200,
    response: Type.Object({ sites: Type.Array(SiteRecordSchema) }),
    handler: async ({ deps, access }) => ({ sites: (await listSites(deps, access)).map(siteJson) }),
  }),
  defineAppRoute({
    method: 'POST',
    url: '/workspaces/:workspace_id/sites',
    operationId: 'createSite',
    summary: 'Register a site and its hostnames (admins and owners)',
    description: "Past the plan's sites (free 3, starter 10, pro 50, enterprise max_sites): 409 SITE_LIMIT_REACHED (details limit and used).",
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
      },
      { additionalProperties: false },
    ),
    status: 201,
    response: SiteRecordSchema,
    errors: [409],
    handler: async ({ deps, access, body }) =>
      siteJson(
        await createSite(deps, access, {
          name: body.name,
          hostnames: body.hostnames,
          collectionProfile: body.collection_profile,
          profileEffectiveAt: body.collection_profile_effective_at,
          status: body.status,
        }),
      ),
  }),
  defineAppRoute({
    method: 'PATCH',
    url: '/sites/:site_id',
    operationId: 'updateSite',
    summary: "Change a site's name, hostnames, status or collection profile (admins and owners)",
    description: 'hostnames replaces the list whole. A profile switch applies from now, or from a later collection_profile_effective_at, never to older events.',
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
      },
      { additionalProperties: false },
    ),
    status: 200,
    response: SiteRecordSchema,
    errors: [404, 409],
    handler: async ({ deps, access, body }) =>
      siteJson(
        await updateSite(deps, access, {
          name: body.name,
          hostnames: body.hostnames,
          status: body.status,
          collectionProfile: body.collection_profile,
          profileEffectiveAt: body.collection_profile_effective_at,
        }),
      ),
  }),
];
