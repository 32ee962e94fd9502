// GET /api/v2/funnels?site_id=S: the site's saved funnels (name and steps), for whoever may read its
// funnels: an API token with metrics:read, an embed token or a share link whose routes hold `funnel`.
// The embed and share pages offer them in their funnel panel (the signed-in dashboard lists them over
// the management API). Configuration, not analytics: unmetered, and a suspended site's stay listable,
// as /v1/goals.
import { Type } from '@sinclair/typebox';
import { stepJson } from '../../domain/funnels.js';
import { defineRoute } from '../pipeline/define-route.js';
import { FunnelStepsSchema } from '../schemas/funnel.js';
import { SiteQuery } from '../schemas/resources.js';

const SavedFunnelSchema = Type.Object(
  {
    funnel_id: Type.String({ description: 'What POST /api/v2/funnel takes as funnel_id' }),
    name: Type.String(),
    steps: FunnelStepsSchema,
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'SavedFunnel' },
);

export const funnelsRoute = defineRoute({
  url: '/api/v2/funnels',
  operationId: 'listFunnels',
  family: 'goals',
  scopes: ['metrics:read'],
  surface: 'goals',
  embed: 'funnel',
  tags: ['Query'],
  summary: "A site's saved funnels, oldest first",
  description: 'Each saved funnel of the site with its steps; read one with POST /api/v2/funnel {"funnel_id": ...}.',
  querystring: SiteQuery,
  response: Type.Object({ funnels: Type.Array(SavedFunnelSchema) }, { title: 'SavedFunnels' }),
  site: { inactive: 'allow' },
  async handler({ deps, site }) {
    const funnels = await deps.catalog.listFunnels(site!.id);
    return { funnels: funnels.map((f) => ({ funnel_id: f.id, name: f.name, steps: f.steps.map(stepJson), updated_at: f.updatedAt })) };
  },
});
