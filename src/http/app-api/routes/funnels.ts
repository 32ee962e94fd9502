// Saved funnels of a workspace's sites: everyone lists them; admins and owners create, change and
// delete them, as the command line can. POST /api/v2/funnel reads one by its funnel_id.
import { Type } from '@sinclair/typebox';
import type { FunnelStep } from '../../../domain/funnels.js';
import { createFunnel, deleteFunnel, listFunnels, updateFunnel } from '../../../services/manage/funnels.js';
import { funnelJson } from '../../../services/manage/records-json.js';
import { FunnelStepsSchema } from '../../schemas/funnel.js';
import { defineAppRoute } from '../define-app-route.js';
import { FunnelRecordSchema, Id, Name } from '../schemas.js';
import { FunnelParams, SiteFilter, WorkspaceParams } from './params.js';

/** Steps as the API writes them; the catalog checks the rest (a path's leading "/", a repeated step). */
const stepsOf = (steps: ({ page: string } | { event: string })[]): FunnelStep[] =>
  steps.map((s) => ('page' in s ? { kind: 'page', pattern: s.page } : { kind: 'event', name: s.event }));

export const funnelRoutes = [
  defineAppRoute({
    method: 'GET',
    url: '/workspaces/:workspace_id/funnels',
    operationId: 'listFunnels',
    summary: "Saved funnels of the workspace's sites (or of one site)",
    tag: 'Funnels',
    auth: 'session',
    guard: { on: 'workspace', need: 'viewer' },
    params: WorkspaceParams,
    query: SiteFilter,
    status: 200,
    response: Type.Object({ funnels: Type.Array(FunnelRecordSchema) }),
    errors: [404],
    handler: async ({ deps, access, query }) => ({ funnels: (await listFunnels(deps, access, query.site_id)).map(funnelJson) }),
  }),
  defineAppRoute({
    method: 'POST',
    url: '/workspaces/:workspace_id/funnels',
    operationId: 'createFunnel',
    summary: 'Save a funnel of a site of the workspace (admins and owners)',
    tag: 'Funnels',
    auth: 'session',
    guard: { on: 'workspace', need: 'admin' },
    params: WorkspaceParams,
    body: Type.Object({ site_id: Id('A site of the workspace'), name: Name, steps: FunnelStepsSchema }, { additionalProperties: false }),
    status: 201,
    response: FunnelRecordSchema,
    errors: [404],
    handler: async ({ deps, access, body }) =>
      funnelJson(await createFunnel(deps, access, { siteId: body.site_id, name: body.name, steps: stepsOf(body.steps) })),
  }),
  defineAppRoute({
    method: 'PATCH',
    url: '/funnels/:funnel_id',
    operationId: 'updateFunnel',
    summary: 'Rename a funnel or replace its steps (admins and owners)',
    tag: 'Funnels',
    auth: 'session',
    guard: { on: 'funnel', need: 'admin' },
    params: FunnelParams,
    body: Type.Object({ name: Type.Optional(Name), steps: Type.Optional(FunnelStepsSchema) }, { additionalProperties: false }),
    status: 200,
    response: FunnelRecordSchema,
    errors: [404],
    handler: async ({ deps, access, body }) =>
      funnelJson(await updateFunnel(deps, access, { name: body.name, steps: body.steps ? stepsOf(body.steps) : undefined })),
  }),
  defineAppRoute({
    method: 'DELETE',
    url: '/funnels/:funnel_id',
    operationId: 'deleteFunnel',
    summary: 'Delete a saved funnel (admins and owners)',
    tag: 'Funnels',
    auth: 'session',
    guard: { on: 'funnel', need: 'admin' },
    params: FunnelParams,
    status: 204,
    errors: [404],
    handler: async ({ deps, access }) => deleteFunnel(deps, access),
  }),
];
