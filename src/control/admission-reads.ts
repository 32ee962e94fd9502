// Authentication's one control-plane statement (docs/product.md §7.2): the token of a secret's hash, its
// workspace, and the site the request names when it is one of that workspace's, read together, so a /v1
// read makes one round trip to PostgreSQL (one statement on SQLite) before its rate limit, not three.
// Compiled once (query-template.ts) and run the way the catalog runs its request-path lookups.
import type { Kysely } from 'kysely';
import type { Site, Token, Workspace } from '../ports/catalog-store.js';
import { toSite, toToken, toWorkspace } from './catalog-rows.js';
import { queryTemplate, type RunQuery } from './query-template.js';
import type { ControlDB } from './schema.js';

/** The token's columns, each named: a statement whose text fixes its columns reads its rows faster (sqlite/dialect.ts). */
const TOKEN_COLUMNS = [
  'tokens.id',
  'tokens.workspace_id',
  'tokens.secret_hash',
  'tokens.scopes',
  'tokens.site_ids',
  'tokens.tenant_ids',
  'tokens.revoked_at',
  'tokens.created_at',
  'tokens.rotated_at',
  'tokens.name',
] as const;

/** The workspace columns read beside the token's (ws_*: the token has an id and a created_at of its own). */
const WORKSPACE_COLUMNS = [
  'workspaces.name as ws_name',
  'workspaces.plan as ws_plan',
  'workspaces.api_policy as ws_api_policy',
  'workspaces.created_at as ws_created_at',
] as const;

export interface AdmissionReads {
  token(secretHash: string): Promise<{ token: Token; workspace: Workspace } | null>;
  /** `site` null: the token's workspace has no site of that id (foreign and unknown alike) */
  tokenAndSite(secretHash: string, siteId: string): Promise<{ token: Token; workspace: Workspace; site: Site | null } | null>;
}

export function admissionReads(db: Kysely<ControlDB>, run: RunQuery): AdmissionReads {
  const withWorkspace = queryTemplate(1, (secretHash: string) =>
    db
      .selectFrom('tokens')
      .innerJoin('workspaces', 'workspaces.id', 'tokens.workspace_id')
      .select(TOKEN_COLUMNS)
      .select(WORKSPACE_COLUMNS)
      .where('tokens.secret_hash', '=', secretHash),
  );
  // one row per hostname of the site (none, or no such site: one row with nulls)
  const withSite = queryTemplate(2, (secretHash: string, siteId: string) =>
    db
      .selectFrom('tokens')
      .innerJoin('workspaces', 'workspaces.id', 'tokens.workspace_id')
      .leftJoin('sites', (join) => join.onRef('sites.workspace_id', '=', 'tokens.workspace_id').on('sites.id', '=', siteId))
      .leftJoin('site_hostnames', 'site_hostnames.site_id', 'sites.id')
      .select(TOKEN_COLUMNS)
      .select(WORKSPACE_COLUMNS)
      .select([
        'sites.id as site_id',
        'sites.name as site_name',
        'sites.status as site_status',
        'sites.collection_profile as site_collection_profile',
        'sites.profile_effective_at as site_profile_effective_at',
        'sites.created_at as site_created_at',
        'sites.domain_scope as site_domain_scope',
        'sites.timezone as site_timezone',
        'site_hostnames.hostname',
      ])
      .where('tokens.secret_hash', '=', secretHash)
      .orderBy('site_hostnames.ordinal'),
  );
  return {
    async token(secretHash) {
      const row = (await run(withWorkspace(secretHash))).rows[0];
      return row ? { token: toToken(row), workspace: workspaceOf(row) } : null;
    },
    async tokenAndSite(secretHash, siteId) {
      const { rows } = await run(withSite(secretHash, siteId));
      if (rows.length === 0) return null;
      const first = rows[0];
      let site: Site | null = null;
      if (first.site_id !== null) {
        const hostnames: string[] = [];
        for (const r of rows) if (r.hostname !== null) hostnames.push(r.hostname);
        site = toSite(
          {
            id: first.site_id,
            workspace_id: first.workspace_id,
            name: first.site_name!,
            status: first.site_status!,
            collection_profile: first.site_collection_profile!,
            profile_effective_at: first.site_profile_effective_at,
            created_at: first.site_created_at!,
            domain_scope: first.site_domain_scope,
            timezone: first.site_timezone!,
          },
          hostnames,
        );
      }
      return { token: toToken(first), workspace: workspaceOf(first), site };
    },
  };
}

function workspaceOf(row: {
  workspace_id: string;
  ws_name: string;
  ws_plan: string;
  ws_api_policy: string;
  ws_created_at: string;
}): Workspace {
  return toWorkspace({
    id: row.workspace_id,
    name: row.ws_name,
    plan: row.ws_plan,
    api_policy: row.ws_api_policy,
    created_at: row.ws_created_at,
  });
}
