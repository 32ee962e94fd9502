// The management API's own OpenAPI 3.1 document (GET /app/api/openapi.json), built from the route
// definitions: the same TypeBox schemas that check each body describe it here. The read API's
// document (/openapi.json) does not list these routes.
import type { TSchema } from '@sinclair/typebox';
import { MANAGE_ERROR_CATALOG, MANAGE_ERROR_CODES } from '../../domain/manage-errors.js';
import { errorResponseName } from '../openapi/error-responses.js';
import { license, PACKAGE_VERSION } from '../openapi/finish-document.js';
import { hoistTitledSchemas } from '../openapi/hoist-components.js';
import { APP_API_PREFIX } from './app-api-prefix.js';
import { DASHBOARD_QUERY_PATHS, DASHBOARD_READ_PATHS } from './dashboard-reads.js';
import { securityOf, type AppRoute } from './define-app-route.js';
import { ManageErrorEnvelope } from './schemas.js';
import { SESSION_COOKIE } from './session-cookie.js';

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document, walked and rewritten as plain JSON of any shape
type Json = Record<string, any>;

const TAGS: Record<string, string> = {
  Session: 'Signing in (password, invitation, reset or one-time link), the session and its CSRF token, signing out.',
  Workspaces: "The person's workspaces, their role in each, and a workspace's API usage.",
  Members: 'Members, seats and invitations.',
  Sites: 'Sites and their hostnames, domain scope and patterns (and their DNS proof), status and collection profile.',
  Tenants: "Tenants of a workspace's sites.",
  Goals: "Goals of a workspace's sites.",
  Funnels: "Saved funnels of a workspace's sites: ordered steps POST /api/v2/funnel reads by funnel_id.",
  Tokens: 'API tokens for the read API (/v1): a secret is shown once.',
  Embeds: "Embed keys (a secret shown once, the origins that may frame the embed page) and a site's share links (a url shown once).",
};

const DESCRIPTION = [
  'What the dashboard calls: people sign in, then manage the workspaces they belong to with the rights of their role',
  '(owner: everything, members included; admin: sites, tenants, goals, funnels, tokens, invitations of admins and viewers;',
  'viewer: reads only). Errors come in the same envelope as the read API, with the codes below.',
  '',
  'A session is a cookie (`' +
    SESSION_COOKIE +
    "`, HttpOnly, SameSite=Lax, Path=/app; Secure when the server's public URL is https:// or the request came over HTTPS) living 14 days from the last request.",
  'Every request but GET and HEAD needs `X-CSRF-Token` (the `csrf_token` of the session), except signing in and accepting a link;',
  "any such request whose browser sends `Origin` must come from the server's own origin. Otherwise 403 and nothing changes.",
  'The role is checked before the body (403 before 422). A workspace or resource the caller may not see is 404, as an unknown one is.',
  'Each session may make 100 requests in any 5 seconds (429 with Retry-After past it).',
  'Every answer, errors included, carries `Cache-Control: no-store` and `X-Content-Type-Options: nosniff`.',
  '',
  "**The dashboard's reads** are not listed below: they are the read API's operations that name a site, served again under",
  '`/app/api` with the same path after the prefix, parameters, answers (CSV included) and error codes as in `/openapi.json`:',
  DASHBOARD_READ_PATHS.map((p) => `\`GET ${p}\``).join(', ') +
    ", and the query API's " +
    DASHBOARD_QUERY_PATHS.map((p) => `\`POST ${p}\``).join(' and ') +
    ' (a JSON body, with the `X-CSRF-Token` header as every POST here).',
  "They are entered with the session cookie instead of a token: a member of the site's workspace, whatever the role, reads it; any other",
  'site answers 403 `FORBIDDEN` exactly as /v1 answers a site the token may not read. They are not metered (`meta.units_charged` 0), follow the',
  "plan's dashboard rules (`GET /app/api/sites/{site_id}` gives them) instead of its API policy, and count against the same 100 requests in 5 seconds.",
  '',
  '| Code | HTTP | Meaning |',
  '|---|---|---|',
  ...MANAGE_ERROR_CODES.map((c) => `| \`${c}\` | ${MANAGE_ERROR_CATALOG[c].status} | ${MANAGE_ERROR_CATALOG[c].message} |`),
].join('\n');

const REQUEST_ID = { description: 'The request id; error.request_id repeats it', required: true, schema: { type: 'string' } };

const json = (s: TSchema): Json => JSON.parse(JSON.stringify(s));

/** The error statuses a route can answer. */
export function errorStatuses(def: AppRoute): number[] {
  const unsafe = def.method !== 'GET';
  // every route reads the control plane: 503 CONTROL_PLANE_UNAVAILABLE while it is down
  const s = new Set<number>([404, 405, 500, 503, ...(def.errors ?? [])]);
  if (def.body || def.query || def.params) s.add(422);
  if (unsafe) s.add(403); // Origin (and CSRF token with a session)
  if (def.auth === 'session') for (const x of [401, 429]) s.add(x);
  if (def.guard) s.add(403);
  return [...s].sort((a, b) => a - b);
}

function operation(def: AppRoute): Json {
  const params: Json[] = [];
  for (const [name, schema] of Object.entries<Json>(json(def.params ?? ({ properties: {} } as never)).properties ?? {}))
    params.push({ name, in: 'path', required: true, description: schema.description, schema: { ...schema, description: undefined } });
  const query = def.query ? json(def.query) : null;
  for (const [name, schema] of Object.entries<Json>(query?.properties ?? {}))
    params.push({
      name,
      in: 'query',
      required: (query!.required ?? []).includes(name),
      description: schema.description,
      schema: { ...schema, description: undefined },
    });
  const ok: Json = {
    description: def.response ? (json(def.response).description ?? def.summary) : def.summary,
    headers: { 'X-Request-Id': REQUEST_ID },
  };
  if (def.response) ok.content = { [def.produces ?? 'application/json']: { schema: json(def.response) } };
  const responses: Json = { [def.status]: ok };
  for (const status of errorStatuses(def)) responses[status] = { $ref: `#/components/responses/${errorResponseName(status)}` };
  return JSON.parse(
    JSON.stringify({
      operationId: def.operationId,
      summary: def.summary,
      description: def.description,
      tags: [def.tag],
      security: securityOf(def),
      parameters: params.length ? params : undefined,
      requestBody: def.body ? { required: true, content: { 'application/json': { schema: json(def.body) } } } : undefined,
      responses,
    }),
  );
}

function errorResponse(status: number): Json {
  const codes = MANAGE_ERROR_CODES.filter((c) => MANAGE_ERROR_CATALOG[c].status === status);
  const headers: Json = { 'X-Request-Id': REQUEST_ID };
  if (status === 429 || status === 503)
    headers['Retry-After'] = {
      description: 'Seconds to wait before trying again',
      required: true,
      schema: { type: 'integer', minimum: 1 },
    };
  if (status === 405) headers.Allow = { description: 'The methods the path answers', required: true, schema: { type: 'string' } };
  return { description: `Error: ${codes.join(', ')}`, headers, content: { 'application/json': { schema: json(ManageErrorEnvelope) } } };
}

export function appApiDocument(routes: readonly AppRoute[]): Json {
  const paths: Json = {};
  const used = new Set<number>();
  for (const def of routes) {
    const path = APP_API_PREFIX + def.url.replace(/:([a-z_]+)/g, '{$1}');
    (paths[path] ??= {})[def.method.toLowerCase()] = operation(def);
    for (const s of errorStatuses(def)) used.add(s);
  }
  const responses: Json = {};
  for (const s of [...used].sort((a, b) => a - b)) responses[errorResponseName(s)] = errorResponse(s);
  const schemas: Json = {};
  hoistTitledSchemas(paths, schemas);
  hoistTitledSchemas(responses, schemas);
  return {
    openapi: '3.1.0',
    info: { title: 'footfall management API', version: PACKAGE_VERSION, description: DESCRIPTION, license: license() },
    servers: [{ url: '/', description: 'The server that serves this document' }],
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name, description: TAGS[name] ?? name })),
    paths,
    components: {
      securitySchemes: {
        sessionCookie: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'The session cookie that signing in sets' },
        csrfToken: { type: 'apiKey', in: 'header', name: 'X-CSRF-Token', description: "The session's csrf_token (GET /app/api/session)" },
      },
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
      responses,
    },
  };
}
