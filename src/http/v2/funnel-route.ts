// POST /api/v2/funnel: the visitors of each step of a funnel in the site's time zone
// (docs/decisions/funnels.md). The pipeline admits the caller (API token, or embed token reading its
// own site and tenant) and resolves the site (an id or a hostname) and tenant, as for /api/v2/query;
// serveFunnel does the rest.
import { parseFunnelBody } from '../../domain/query-api/funnel-body.js';
import { serveFunnel } from '../../services/query-api/serve-funnel.js';
import { defineRoute, RawJson } from '../pipeline/define-route.js';
import { FunnelAnswerSchema, FunnelBodySchema } from '../schemas/funnel.js';

export const funnelRoute = defineRoute({
  url: '/api/v2/funnel',
  method: 'POST',
  operationId: 'funnel',
  family: 'metrics',
  scopes: ['metrics:read'],
  surface: 'goals',
  embed: 'funnel',
  tags: ['Query'],
  summary: 'The visitors of each step of a funnel, and how many go on to the next',
  description:
    'A funnel is 2 to 8 ordered steps, each {"page": pattern} (* any run of characters, anchored, case-sensitive) or {"event": name}, ' +
    "or funnel_id of a saved one. A visit starting in date_range (the site's time zone) reaches step k when it holds events matching " +
    'steps 1..k at non-decreasing times (others may come between). Units = 2 x ceil(days / 30) x (steps + 1).',
  body: FunnelBodySchema,
  response: FunnelAnswerSchema,
  errors: [402, 409, 503],
  site: { inactive: 'reject', hostnames: true, tenantRequiredForRestrictedToken: true },
  check(body) {
    parseFunnelBody(body);
  },
  async handler(ctx) {
    return new RawJson(await serveFunnel(ctx, parseFunnelBody(ctx.query)));
  },
});
