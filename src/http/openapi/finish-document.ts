// Turns the document @fastify/swagger derives from the route schemas into the one a generated client
// and the /docs page need: servers, licence, description, tags, a shared error envelope referenced by
// every error response (narrowed per status), response headers, documented 404 and 405, an example
// for every 200, and named components.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ErrorEnvelope } from '../schemas/common.js';
import { apiDescription } from './description.js';
import { errorResponseComponents, errorResponseRef, rateLimitHeaders, REQUEST_ID_HEADER, retryAfterHeader } from './error-responses.js';
import { hoistTitledSchemas } from './hoist-components.js';

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document, walked and rewritten as plain JSON of any shape
type Json = Record<string, any>;

const readJson = (rel: string): Json => JSON.parse(fs.readFileSync(fileURLToPath(new URL(rel, import.meta.url)), 'utf8'));

const pkg = readJson('../../../package.json') as { version: string; license?: string };

/** Response bodies of real requests, one per operationId (scripts/gen-examples.ts writes the file). */
export const EXAMPLES_FILE = fileURLToPath(new URL('./examples.json', import.meta.url));
function loadExamples(): Json {
  return fs.existsSync(EXAMPLES_FILE) ? JSON.parse(fs.readFileSync(EXAMPLES_FILE, 'utf8')) : {};
}

export const TAGS: { name: string; description: string }[] = [
  { name: 'Caller and plan', description: "The token's workspace: plan, API policy, retention, capabilities. Not metered." },
  {
    name: 'Sites and tenants',
    description: 'Sites the token may read with their product configuration, and the active tenants of a site. Not metered.',
  },
  {
    name: 'Goals',
    description:
      'Goals configured in the dashboard (not metered) and their conversions (metered, Extended data, plans with api.allow_goals).',
  },
  {
    name: 'Reports',
    description: 'Overview, acquisition, actions and content reports in the common report envelope. Metered; plans with api.allow_reports.',
  },
  {
    name: 'Metrics',
    description: 'One metric as a series or grouped by a dimension, in the common report envelope. Metered by the spec formula.',
  },
  {
    name: 'Query',
    description:
      "Plausible's Stats API v2 query (POST /api/v2/query) in the site's time zone: any metrics, dimensions, filters, order and pages; " +
      'funnels (POST /api/v2/funnel): the visitors of each ordered step. Metered.',
  },
  { name: 'Usage', description: 'Metered units of the current month and of past months. Not metered; usage:read or metrics:read.' },
  { name: 'Operations', description: 'Liveness for load balancers and uptime monitors. No token.' },
  {
    name: 'Collection',
    description: 'Live collection: the tracker script, and the endpoint it and server-side senders post events to. No token.',
  },
];

/** The package's version, for the info of every document the server serves. */
export const PACKAGE_VERSION = pkg.version;

/** The info.license object of the package's licence. */
export function license(): Json {
  const id = pkg.license;
  // npm's UNLICENSED means no licence is granted; SPDX spells a licence of one's own LicenseRef-*.
  if (!id || id === 'UNLICENSED') return { name: 'Proprietary: all rights reserved', identifier: 'LicenseRef-Proprietary' };
  return { name: id, identifier: id };
}

const METHODS = ['get', 'head', 'put', 'post', 'delete', 'options', 'patch', 'trace'];

function finishOperation(path: string, method: string, op: Json, examples: Json): void {
  // One route may answer GET and HEAD (/healthz): one schema, two operations, two ids.
  if (method === 'head' && typeof op.operationId === 'string') op.operationId = op.operationId.replace(/^get/, 'head');
  const authenticated = Array.isArray(op.security) && op.security.length > 0;
  if (!authenticated) op.security = []; // stated, not inherited: no token needed
  // Routes that take no token are outside the /v1 pipeline and state their own responses (collection's
  // 400, 413 and 415 and its own 429, the tracker script): kept as declared, in the error envelope,
  // rather than the shared components. /healthz answers its health object, below.
  const ownResponses = !authenticated && path !== '/healthz';
  const responses: Json = {};
  for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
    const code = Number(status);
    if (code >= 200 && code < 300) {
      const schema = response.content?.['application/json']?.schema;
      const headers: Json = { 'X-Request-Id': REQUEST_ID_HEADER, ...(authenticated ? rateLimitHeaders(false) : {}) };
      const out: Json = { description: schema?.description ?? op.summary ?? 'OK', headers };
      if (schema && method !== 'head') {
        const example = examples[op.operationId];
        // Other media types (text/csv of the metrics routes) follow the JSON, as the route declares them.
        const { 'application/json': _json, ...others } = response.content as Json;
        out.content = { 'application/json': { schema, ...(example !== undefined ? { example } : {}) }, ...others };
      } else if (response.content && method !== 'head') {
        // a body that is not JSON (the tracker script, the collection's "ok"), described as the route states it
        out.content = response.content;
        if (ownResponses && response.description) out.description = response.description;
      }
      responses[status] = out;
    } else if (ownResponses) {
      const headers: Json = { 'X-Request-Id': REQUEST_ID_HEADER };
      if (code === 429) headers['Retry-After'] = retryAfterHeader('Seconds until the client address may send again');
      if (code === 503) headers['Retry-After'] = retryAfterHeader('Seconds to wait before sending again');
      responses[status] = {
        description: response.description,
        headers,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
      };
    } else if (path === '/healthz') {
      // The health report itself, not an error envelope: monitors read `checks`.
      responses[status] = {
        description: 'A store does not answer: the same health object, status unavailable',
        headers: { 'X-Request-Id': REQUEST_ID_HEADER, 'Retry-After': retryAfterHeader('Seconds to wait before asking again') },
        ...(method !== 'head' ? { content: response.content } : {}),
      };
    } else {
      responses[status] = errorResponseRef(code);
    }
  }
  responses['404'] = errorResponseRef(404);
  responses['405'] = errorResponseRef(405);
  op.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
}

/** The transformObject of @fastify/swagger: runs once, when the document is first asked for. */
export function finishDocument(doc: Json): Json {
  const examples = loadExamples();
  doc.info = {
    ...doc.info,
    version: pkg.version,
    description: apiDescription(),
    license: license(),
  };
  doc.servers = [{ url: '/', description: 'The server that serves this document' }];
  doc.tags = TAGS;
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    // A route answering two methods shares one operation object between them: each gets its own.
    for (const method of METHODS) if (item[method]) finishOperation(path, method, (item[method] = structuredClone(item[method])), examples);
  }
  // Titled schemas (the error envelope among them) become components of their own.
  const schemas: Json = {};
  hoistTitledSchemas(doc.paths, schemas);
  hoistTitledSchemas({ envelope: JSON.parse(JSON.stringify(ErrorEnvelope)) }, schemas);
  doc.components = {
    securitySchemes: doc.components?.securitySchemes,
    schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
    responses: errorResponseComponents(),
  };
  return doc;
}
