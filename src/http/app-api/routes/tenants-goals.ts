// Tenants and goals of a workspace's sites: everyone lists them; admins and owners create, change
// and (goals) delete them, as the command line can.
import { Type } from '@sinclair/typebox';
import { goalJson, tenantJson } from '../../../services/manage/records-json.js';
import {
  createGoal,
  createTenant,
  deleteGoal,
  listGoals,
  listTenants,
  updateGoal,
  updateTenant,
} from '../../../services/manage/tenants-goals.js';
import { defineAppRoute } from '../define-app-route.js';
import {
  GoalFiltersSchema,
  GoalIntentSchema,
  GoalRecordSchema,
  GoalTypeSchema,
  Id,
  Name,
  TenantRecordSchema,
  TenantStatusSchema,
} from '../schemas.js';
import { GoalParams, SiteFilter, TenantParams, WorkspaceParams } from './params.js';

const Slug = Type.String({ minLength: 1, maxLength: 63, description: 'Lower-case letters, digits, "-" and "_"' });
const Pattern = Type.String({ minLength: 1, maxLength: 1000 });

export const tenantRoutes = [
  defineAppRoute({
    method: 'GET',
    url: '/workspaces/:workspace_id/tenants',
    operationId: 'listTenants',
    summary: "Tenants of the workspace's sites (or of one site)",
    tag: 'Tenants',
    auth: 'session',
    guard: { on: 'workspace', need: 'viewer' },
    params: WorkspaceParams,
    query: SiteFilter,
    status: 200,
    response: Type.Object({ tenants: Type.Array(TenantRecordSchema) }),
    errors: [404],
    handler: async ({ deps, access, query }) => ({ tenants: (await listTenants(deps, access, query.site_id)).map(tenantJson) }),
  }),
  defineAppRoute({
    method: 'POST',
    url: '/workspaces/:workspace_id/tenants',
    operationId: 'createTenant',
    summary: 'Add a tenant to a site of the workspace (admins and owners)',
    tag: 'Tenants',
    auth: 'session',
    guard: { on: 'workspace', need: 'admin' },
    params: WorkspaceParams,
    body: Type.Object(
      { site_id: Id('A site of the workspace'), slug: Slug, name: Name, status: Type.Optional(TenantStatusSchema) },
      { additionalProperties: false },
    ),
    status: 201,
    response: TenantRecordSchema,
    errors: [404, 409],
    handler: async ({ deps, access, body }) =>
      tenantJson(await createTenant(deps, access, { siteId: body.site_id, slug: body.slug, name: body.name, status: body.status })),
  }),
  defineAppRoute({
    method: 'PATCH',
    url: '/tenants/:tenant_id',
    operationId: 'updateTenant',
    summary: "Change a tenant's slug, name or status (admins and owners)",
    tag: 'Tenants',
    auth: 'session',
    guard: { on: 'tenant', need: 'admin' },
    params: TenantParams,
    body: Type.Object(
      { slug: Type.Optional(Slug), name: Type.Optional(Name), status: Type.Optional(TenantStatusSchema) },
      { additionalProperties: false },
    ),
    status: 200,
    response: TenantRecordSchema,
    errors: [404, 409],
    handler: async ({ deps, access, body }) => tenantJson(await updateTenant(deps, access, body)),
  }),
];

export const goalRoutes = [
  defineAppRoute({
    method: 'GET',
    url: '/workspaces/:workspace_id/goals',
    operationId: 'listGoals',
    summary: "Goals of the workspace's sites (or of one site)",
    tag: 'Goals',
    auth: 'session',
    guard: { on: 'workspace', need: 'viewer' },
    params: WorkspaceParams,
    query: SiteFilter,
    status: 200,
    response: Type.Object({ goals: Type.Array(GoalRecordSchema) }),
    errors: [404],
    handler: async ({ deps, access, query }) => ({ goals: (await listGoals(deps, access, query.site_id)).map(goalJson) }),
  }),
  defineAppRoute({
    method: 'POST',
    url: '/workspaces/:workspace_id/goals',
    operationId: 'createGoal',
    summary: 'Add a goal to a site of the workspace (admins and owners)',
    tag: 'Goals',
    auth: 'session',
    guard: { on: 'workspace', need: 'admin' },
    params: WorkspaceParams,
    body: Type.Object(
      {
        site_id: Id('A site of the workspace'),
        name: Name,
        type: GoalTypeSchema,
        intent: GoalIntentSchema,
        pattern: Pattern,
        filters: Type.Optional(GoalFiltersSchema),
      },
      { additionalProperties: false },
    ),
    status: 201,
    response: GoalRecordSchema,
    errors: [404],
    handler: async ({ deps, access, body }) =>
      goalJson(
        await createGoal(deps, access, {
          siteId: body.site_id,
          name: body.name,
          type: body.type,
          intent: body.intent,
          pattern: body.pattern,
          filters: body.filters ?? {},
        }),
      ),
  }),
  defineAppRoute({
    method: 'PATCH',
    url: '/goals/:goal_id',
    operationId: 'updateGoal',
    summary: 'Change a goal (admins and owners); filters, when given, replace the old ones whole',
    tag: 'Goals',
    auth: 'session',
    guard: { on: 'goal', need: 'admin' },
    params: GoalParams,
    body: Type.Object(
      {
        name: Type.Optional(Name),
        type: Type.Optional(GoalTypeSchema),
        intent: Type.Optional(GoalIntentSchema),
        pattern: Type.Optional(Pattern),
        filters: Type.Optional(GoalFiltersSchema),
      },
      { additionalProperties: false },
    ),
    status: 200,
    response: GoalRecordSchema,
    errors: [404],
    handler: async ({ deps, access, body }) => goalJson(await updateGoal(deps, access, body)),
  }),
  defineAppRoute({
    method: 'DELETE',
    url: '/goals/:goal_id',
    operationId: 'deleteGoal',
    summary: 'Delete a goal (admins and owners)',
    tag: 'Goals',
    auth: 'session',
    guard: { on: 'goal', need: 'admin' },
    params: GoalParams,
    status: 204,
    errors: [404],
    handler: async ({ deps, access }) => deleteGoal(deps, access),
  }),
];
