import { Type } from '@sinclair/typebox';
import { siteProductConfiguration } from '../../domain/product.js';
import { canReadSite } from '../../domain/access.js';
import { defineRoute } from '../pipeline/define-route.js';
import { listOf, SiteSchema } from '../schemas/resources.js';

export const sitesRoute = defineRoute({
  url: '/v1/sites',
  operationId: 'listSites',
  family: 'sites',
  scopes: ['metrics:read'],
  surface: null,
  tags: ['Sites and tenants'],
  summary: 'Sites the token may read, with their product configuration',
  querystring: Type.Object({}, { additionalProperties: false }),
  response: listOf(SiteSchema),
  async handler({ deps, caller }) {
    const sites = (await deps.catalog.listSites(caller.workspace.id)).filter((s) => canReadSite(caller.grant, s));
    return {
      items: sites.map((s) => ({
        siteId: s.id,
        name: s.name,
        hostnames: [...s.hostnames],
        status: s.status,
        product_configuration: siteProductConfiguration(caller.workspace, s),
      })),
    };
  },
});
