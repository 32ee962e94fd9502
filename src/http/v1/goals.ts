import { defineRoute } from '../pipeline/define-route.js';
import { GoalSchema, listOf, SiteQuery } from '../schemas/resources.js';

export const goalsRoute = defineRoute({
  url: '/v1/goals',
  operationId: 'listGoals',
  family: 'goals',
  scopes: ['metrics:read'],
  surface: 'goals',
  embed: 'goals',
  tags: ['Goals'],
  summary: 'Goals configured for a site',
  querystring: SiteQuery,
  response: listOf(GoalSchema),
  // Listing reads configuration, not analytics: a suspended site's goals stay listable.
  site: { inactive: 'allow' },
  async handler({ deps, site }) {
    const goals = await deps.catalog.listGoals(site!.id);
    return {
      items: goals.map((g) => {
        const filters = Object.fromEntries(Object.entries(g.filters ?? {}).filter(([, v]) => typeof v === 'string'));
        return {
          goalId: g.id,
          siteId: g.siteId,
          orgId: g.workspaceId,
          name: g.name,
          type: g.type,
          intent: g.intent,
          pattern: g.pattern,
          ...(Object.keys(filters).length ? { filters } : {}),
          createdAt: g.createdAt,
          updatedAt: g.updatedAt,
        };
      }),
    };
  },
});
