// The person's workspaces: list, create (free plan, the creator its owner), rename, this month's API usage.
import { Type } from '@sinclair/typebox';
import type { Role } from '../../../domain/roles.js';
import { dashboardRulesJson, planJson, workspaceSummaryJson } from '../../../services/manage/records-json.js';
import { createWorkspaceFor, renameWorkspace, workspacesOf, workspaceUsage } from '../../../services/manage/workspaces.js';
import { defineAppRoute } from '../define-app-route.js';
import { Name, UsageSchema, WorkspaceDetailsSchema, WorkspaceSummarySchema } from '../schemas.js';
import { WorkspaceParams } from './params.js';

const TAG = 'Workspaces';
const summary = workspaceSummaryJson;

export const workspaceRoutes = [
  defineAppRoute({
    method: 'GET',
    url: '/workspaces',
    operationId: 'listWorkspaces',
    summary: "The person's workspaces and their role in each",
    tag: TAG,
    auth: 'session',
    status: 200,
    response: Type.Object({ workspaces: Type.Array(WorkspaceSummarySchema) }),
    handler: async ({ deps, session }) => ({
      workspaces: (await workspacesOf(deps, session.user)).map(({ workspace, role }) => summary(workspace, role)),
    }),
  }),
  defineAppRoute({
    method: 'POST',
    url: '/workspaces',
    operationId: 'createWorkspace',
    summary: 'Create a workspace on the free plan; its creator is its owner',
    description: 'Plans and their API policy are changed by the operator (`footfall workspace update`).',
    tag: TAG,
    auth: 'session',
    body: Type.Object({ name: Name }, { additionalProperties: false }),
    status: 201,
    response: WorkspaceSummarySchema,
    handler: async ({ deps, session, body }) => summary(await createWorkspaceFor(deps, session.user, body.name), 'owner'),
  }),
  defineAppRoute({
    method: 'GET',
    url: '/workspaces/:workspace_id',
    operationId: 'getWorkspace',
    summary:
      "A workspace, the person's role in it, and what its plan opens: the dashboard's rules, API tokens, seats and sites (any member)",
    tag: TAG,
    auth: 'session',
    guard: { on: 'workspace', need: 'viewer' },
    params: WorkspaceParams,
    status: 200,
    response: WorkspaceDetailsSchema,
    handler: async ({ access }) => ({
      workspace: summary(access.workspace, access.role as Role),
      dashboard: dashboardRulesJson(access.workspace),
      plan: planJson(access.workspace),
    }),
  }),
  defineAppRoute({
    method: 'PATCH',
    url: '/workspaces/:workspace_id',
    operationId: 'renameWorkspace',
    summary: 'Rename a workspace (owners)',
    tag: TAG,
    auth: 'session',
    guard: { on: 'workspace', need: 'owner' },
    params: WorkspaceParams,
    body: Type.Object({ name: Name }, { additionalProperties: false }),
    status: 200,
    response: WorkspaceSummarySchema,
    handler: async ({ deps, access, body }) => summary(await renameWorkspace(deps, access, body.name), access.role as Role),
  }),
  defineAppRoute({
    method: 'GET',
    url: '/workspaces/:workspace_id/usage',
    operationId: 'getWorkspaceUsage',
    summary: "This month's metered API units (admins and owners)",
    tag: TAG,
    auth: 'session',
    guard: { on: 'workspace', need: 'admin' },
    params: WorkspaceParams,
    status: 200,
    response: UsageSchema,
    handler: async ({ deps, access }) => workspaceUsage(deps, access),
  }),
];
