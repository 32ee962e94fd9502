import { defineRoute } from '../pipeline/define-route.js';
import { listOf, SiteQuery, TenantSchema } from '../schemas/resources.js';

export const tenantsRoute = defineRoute({
  url: '/v1/tenants',
  operationId: 'listTenants',
  family: 'tenants',
  scopes: ['metrics:read'],
  surface: 'tenants',
  tags: ['Sites and tenants'],
  summary: 'Active tenants of a site the token may read',
  description: 'A tenant-restricted token sees only its allowed tenants.',
  querystring: SiteQuery,
  response: listOf(TenantSchema),
  // Listing reads configuration, not analytics: a suspended site's tenants stay listable.
  site: { inactive: 'allow' },
  async handler({ deps, caller, site }) {
    const allowed = caller.grant.tenantIds;
    const tenants = (await deps.catalog.listTenants(site!.id)).filter(
      (t) => t.status === 'ACTIVE' && (allowed === null || allowed.includes(t.id)),
    );
    return { items: tenants.map((t) => ({ tenant_id: t.id, tenant_slug: t.slug, tenant_name: t.name, status: t.status })) };
  },
});
