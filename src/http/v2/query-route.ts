// POST /api/v2/query: Plausible's Stats API v2 in the site's time zone (docs/decisions/query-api.md).
// The pipeline admits the caller (API token, or embed token reading its own site and tenant), counts the
// rate, checks scope and CSV, parses the body whole, resolves the site (an id or a hostname) and tenant;
// serveQuery does the rest.
import { parseQueryBody } from '../../domain/query-api/query-body.js';
import { serveQuery } from '../../services/query-api/serve-query.js';
import { defineRoute, RawCsv, RawJson } from '../pipeline/define-route.js';
import { QueryAnswerSchema, QueryBodySchema } from '../schemas/query-api.js';

export const queryRoute = defineRoute({
  url: '/api/v2/query',
  method: 'POST',
  operationId: 'query',
  family: 'metrics',
  scopes: ['metrics:read'],
  surface: 'overview',
  embed: 'query',
  tags: ['Query'],
  summary: "Any question Plausible's Stats API v2 asks, in the site's time zone",
  description:
    "Plausible's body (site_id, date_range, metrics, dimensions, filters, order_by, include, pagination) plus tenant_id and traffic. " +
    "Days, weeks and months are the site's local ones (its timezone). Units = 2 x ceil(days / 30) x (dimensions + 1) x (3 with an hourly " +
    'time dimension) x (2 with a comparison). Accept: text/csv answers a header of the dimension then metric names and one record per row.',
  body: QueryBodySchema,
  response: QueryAnswerSchema,
  csv: { description: 'RFC 4180, UTF-8, CRLF: dimensions then metrics, one record per result row (pagination applies).' },
  errors: [402, 409, 503],
  // A restricted token may group by tenant without naming one: its rows are then its tenants only (as /v1).
  site: {
    inactive: 'reject',
    hostnames: true,
    tenantRequiredForRestrictedToken: (body) => !(Array.isArray(body.dimensions) && body.dimensions.includes('visit:tenant')),
  },
  check(body) {
    parseQueryBody(body);
  },
  async handler(ctx) {
    const body = parseQueryBody(ctx.query);
    const csv = ctx.format === 'csv';
    const text = await serveQuery({ ctx, body, csv });
    if (csv) return new RawCsv(text, `${ctx.site!.id}-query.csv`);
    return new RawJson(text);
  },
});
