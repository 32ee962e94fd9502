// Embed keys of a workspace and share links of a site (admins and owners): a key's secret is in the
// answer that creates it only, a link's url (its slug) likewise; lists show neither.
import { Type, type TSchema } from '@sinclair/typebox';
import { MAX_EMBED_ORIGINS } from '../../../domain/embeds.js';
import { createEmbedKey, listEmbedKeys, revokeEmbedKey } from '../../../services/embeds/embed-keys.js';
import { embedKeyJson, shareLinkJson } from '../../../services/embeds/embeds-json.js';
import { createShareLink, listShareLinks, revokeShareLink } from '../../../services/embeds/share-links.js';
import { defineAppRoute } from '../define-app-route.js';
import { DateTime, Enum, Id, Password } from '../schemas.js';
import { SiteParams, WorkspaceParams } from './params.js';

const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);

const EmbedKeySchema = Type.Object(
  {
    key_id: Type.String(),
    workspace_id: Type.String(),
    origins: Type.Array(Type.String(), { description: "The embed page's CSP frame-ancestors; empty: it cannot be framed" }),
    created_at: DateTime,
    revoked_at: Nullable(DateTime),
  },
  { title: 'EmbedKey' },
);
const EmbedKeyWithSecretSchema = Type.Intersect(
  [EmbedKeySchema, Type.Object({ secret: Type.String({ description: 'HS256 key of the embed tokens; shown in this answer only' }) })],
  {
    title: 'EmbedKeyWithSecret',
  },
);
const ShareLinkSchema = Type.Object(
  {
    share_id: Type.String(),
    site_id: Type.String(),
    tenant_id: Nullable(Type.String()),
    password: Type.Boolean({ description: 'Whether the link asks for a password' }),
    expires_at: Nullable(DateTime),
    created_at: DateTime,
    revoked_at: Nullable(DateTime),
    state: Enum(['active', 'revoked', 'expired'] as const),
  },
  { title: 'ShareLink' },
);
const CreatedShareLinkSchema = Type.Intersect(
  [ShareLinkSchema, Type.Object({ url: Type.String({ description: 'The link, shown in this answer only' }) })],
  {
    title: 'CreatedShareLink',
  },
);

const WorkspaceKeyParams = Type.Object({ workspace_id: Id('Workspace id'), key_id: Id('Embed key id') });
const SiteShareParams = Type.Object({ site_id: Id('Site id'), share_id: Id('Share link id') });

export const embedRoutes = [
  defineAppRoute({
    method: 'GET',
    url: '/workspaces/:workspace_id/embed-keys',
    operationId: 'listEmbedKeys',
    summary: 'Embed keys of the workspace, revoked ones included (never their secrets)',
    tag: 'Embeds',
    auth: 'session',
    guard: { on: 'workspace', need: 'admin' },
    params: WorkspaceParams,
    status: 200,
    response: Type.Object({ embed_keys: Type.Array(EmbedKeySchema) }),
    handler: async ({ deps, access }) => ({ embed_keys: (await listEmbedKeys(deps, access)).map(embedKeyJson) }),
  }),
  defineAppRoute({
    method: 'POST',
    url: '/workspaces/:workspace_id/embed-keys',
    operationId: 'createEmbedKey',
    summary: 'Create an embed key; its secret is in this answer only',
    description: 'origins: https origins (http on localhost) that may frame the embed page; none: it cannot be framed.',
    tag: 'Embeds',
    auth: 'session',
    guard: { on: 'workspace', need: 'admin' },
    params: WorkspaceParams,
    body: Type.Object(
      { origins: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { maxItems: MAX_EMBED_ORIGINS })) },
      { additionalProperties: false },
    ),
    status: 201,
    response: EmbedKeyWithSecretSchema,
    handler: async ({ deps, access, body }) => {
      const { key, secret } = await createEmbedKey(deps, access, { origins: body.origins ?? [] });
      return { ...embedKeyJson(key), secret };
    },
  }),
  defineAppRoute({
    method: 'POST',
    url: '/workspaces/:workspace_id/embed-keys/:key_id/revoke',
    operationId: 'revokeEmbedKey',
    summary: 'Revoke an embed key: its tokens are refused from the next request',
    tag: 'Embeds',
    auth: 'session',
    guard: { on: 'workspace', need: 'admin' },
    params: WorkspaceKeyParams,
    status: 200,
    response: EmbedKeySchema,
    errors: [404],
    handler: async ({ deps, access, params }) => embedKeyJson(await revokeEmbedKey(deps, access, params.key_id)),
  }),
  defineAppRoute({
    method: 'GET',
    url: '/sites/:site_id/shares',
    operationId: 'listShareLinks',
    summary: 'Share links of the site, revoked and expired ones included (never their urls)',
    tag: 'Embeds',
    auth: 'session',
    guard: { on: 'site', need: 'admin' },
    params: SiteParams,
    status: 200,
    response: Type.Object({ shares: Type.Array(ShareLinkSchema) }),
    errors: [404],
    handler: async ({ deps, access }) => {
      const now = deps.clock.now();
      return { shares: (await listShareLinks(deps, access)).map((s) => shareLinkJson(s, now)) };
    },
  }),
  defineAppRoute({
    method: 'POST',
    url: '/sites/:site_id/shares',
    operationId: 'createShareLink',
    summary: 'Create a share link of the site (or one tenant); its url is in this answer only',
    description:
      "password: at least 10 characters, asked by the link's page. expires_at: an ISO 8601 instant in the future; absent: never.",
    tag: 'Embeds',
    auth: 'session',
    guard: { on: 'site', need: 'admin' },
    params: SiteParams,
    body: Type.Object(
      {
        tenant_id: Type.Optional(Id('A tenant of the site: the link shows it alone')),
        password: Type.Optional(Password),
        expires_at: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
      },
      { additionalProperties: false },
    ),
    status: 201,
    response: CreatedShareLinkSchema,
    errors: [404],
    handler: async ({ deps, access, body }) => {
      const { share, url } = await createShareLink(deps, access, {
        tenantId: body.tenant_id,
        password: body.password,
        expiresAt: body.expires_at,
      });
      return { ...shareLinkJson(share, deps.clock.now()), url };
    },
  }),
  defineAppRoute({
    method: 'POST',
    url: '/sites/:site_id/shares/:share_id/revoke',
    operationId: 'revokeShareLink',
    summary: 'Revoke a share link: it is gone from the next request',
    tag: 'Embeds',
    auth: 'session',
    guard: { on: 'site', need: 'admin' },
    params: SiteShareParams,
    status: 200,
    response: ShareLinkSchema,
    errors: [404],
    handler: async ({ deps, access, params }) => shareLinkJson(await revokeShareLink(deps, access, params.share_id), deps.clock.now()),
  }),
];
