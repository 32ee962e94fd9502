// API tokens of a workspace (admins and owners): a secret is shown once, by create or rotate.
import { type TSchema, Type } from '@sinclair/typebox';
import { tokenJson } from '../../../services/manage/records-json.js';
import { createToken, listTokens, renameToken, revokeToken, rotateToken } from '../../../services/manage/tokens.js';
import { defineAppRoute } from '../define-app-route.js';
import { ScopeSchema, TokenRecordSchema, TokenWithSecretSchema } from '../schemas.js';
import { WorkspaceParams, WorkspaceTokenParams } from './params.js';

const TAG = 'Tokens';
const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);
const TokenName = Type.String({ minLength: 1, maxLength: 200, description: 'What the token is for ("Data warehouse sync"); trimmed' });
const Ids = (what: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
    minItems: 1,
    maxItems: 1000,
    description: `Allowlist of ${what}; absent: all`,
  });

export const tokenRoutes = [
  defineAppRoute({
    method: 'GET',
    url: '/workspaces/:workspace_id/tokens',
    operationId: 'listTokens',
    summary: 'Tokens of the workspace, revoked ones included (never their secrets)',
    tag: TAG,
    auth: 'session',
    guard: { on: 'workspace', need: 'admin' },
    params: WorkspaceParams,
    status: 200,
    response: Type.Object({ tokens: Type.Array(TokenRecordSchema) }),
    handler: async ({ deps, access }) => ({ tokens: (await listTokens(deps, access)).map(tokenJson) }),
  }),
  defineAppRoute({
    method: 'POST',
    url: '/workspaces/:workspace_id/tokens',
    operationId: 'createToken',
    summary: 'Create a token; its secret is in this answer only',
    tag: TAG,
    auth: 'session',
    guard: { on: 'workspace', need: 'admin' },
    params: WorkspaceParams,
    body: Type.Object(
      {
        scopes: Type.Array(ScopeSchema, { minItems: 1, maxItems: 2 }),
        sites: Type.Optional(Ids('site ids')),
        tenants: Type.Optional(Ids('tenant ids')),
        name: Type.Optional(TokenName),
      },
      { additionalProperties: false },
    ),
    status: 201,
    response: TokenWithSecretSchema,
    errors: [409],
    handler: async ({ deps, access, body }) => {
      const { token, secret } = await createToken(deps, access, {
        scopes: body.scopes,
        siteIds: body.sites ?? null,
        tenantIds: body.tenants ?? null,
        name: body.name ?? null,
      });
      return { ...tokenJson(token), secret };
    },
  }),
  defineAppRoute({
    method: 'POST',
    url: '/workspaces/:workspace_id/tokens/:token_id/revoke',
    operationId: 'revokeToken',
    summary: 'Revoke a token: its next request is refused',
    tag: TAG,
    auth: 'session',
    guard: { on: 'token', need: 'admin' },
    params: WorkspaceTokenParams,
    status: 200,
    response: TokenRecordSchema,
    errors: [404],
    handler: async ({ deps, access }) => tokenJson(await revokeToken(deps, access)),
  }),
  defineAppRoute({
    method: 'PATCH',
    url: '/workspaces/:workspace_id/tokens/:token_id',
    operationId: 'renameToken',
    summary: 'Name a token, or with null leave it unnamed',
    tag: TAG,
    auth: 'session',
    guard: { on: 'token', need: 'admin' },
    params: WorkspaceTokenParams,
    body: Type.Object({ name: Nullable(TokenName) }, { additionalProperties: false }),
    status: 200,
    response: TokenRecordSchema,
    errors: [404],
    handler: async ({ deps, access, body }) => tokenJson(await renameToken(deps, access, body.name)),
  }),
  defineAppRoute({
    method: 'POST',
    url: '/workspaces/:workspace_id/tokens/:token_id/rotate',
    operationId: 'rotateToken',
    summary: 'Give a token a new secret, in this answer only; the old one is refused from the next request',
    tag: TAG,
    auth: 'session',
    guard: { on: 'token', need: 'admin' },
    params: WorkspaceTokenParams,
    status: 200,
    response: TokenWithSecretSchema,
    errors: [404],
    handler: async ({ deps, access }) => {
      const { token, secret } = await rotateToken(deps, access);
      return { ...tokenJson(token), secret };
    },
  }),
];
