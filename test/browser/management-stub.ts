// The signed-in pages are drawn in tests against this stand-in of the management API (/app/api:
// sessions, workspaces, settings), routed inside the browser, because the dashboard's reads under
// /app/api/v1 (the read routes' twins) and a site's live count are not served yet. Those reads go to
// the real /v1 with the test's token: the numbers are real, only the session and the workspace lists
// are stand-ins. Signed out, the pages meet the real management API.
import type { BrowserContext } from 'playwright-core';
import type { DashboardWorld } from './dashboard-world.js';

export const STUB_WORKSPACE = 'ws_stub';

function envelope(code: string, message: string) {
  return { error: { code, message, request_id: 'stub' } };
}

export async function stubManagementApi(context: BrowserContext, w: DashboardWorld, options: { signedIn: boolean }): Promise<void> {
  const session = {
    user: { user_id: 'usr_stub', email: 'owner@example.com', name: 'Owner' },
    csrf_token: 'csrf-stub',
    workspaces: [{ workspace_id: STUB_WORKSPACE, name: 'Example workspace', plan: 'pro', role: 'owner' }],
  };
  const sites = [
    { site_id: w.sites.extended, workspace_id: STUB_WORKSPACE, name: 'Extended example', hostnames: ['site.example'], status: 'ACTIVE', collection_profile: 'extended' },
    { site_id: w.sites.strict, workspace_id: STUB_WORKSPACE, name: 'Strict example', hostnames: ['strict.example'], status: 'ACTIVE', collection_profile: 'strict' },
  ];
  await context.route('**/app/api/**', async (route) => {
    const url = new URL(route.request().url());
    const p = url.pathname;
    if (p.startsWith('/app/api/v1/')) {
      return route.continue({
        url: `${w.server.address}${p.slice('/app/api'.length)}${url.search}`,
        headers: { ...route.request().headers(), authorization: `Bearer ${w.secret}` },
      });
    }
    if (!options.signedIn) return route.fulfill({ status: 401, json: envelope('UNAUTHORIZED', 'Sign in first.') });
    if (p === '/app/api/session') return route.fulfill({ json: session });
    if (/^\/app\/api\/sites\/[^/]+\/live$/.test(p)) return route.fulfill({ json: { visitors: 3, last_event_at: new Date().toISOString() } });
    if (p === `/app/api/workspaces/${STUB_WORKSPACE}/sites`) return route.fulfill({ json: { sites } });
    if (p === `/app/api/workspaces/${STUB_WORKSPACE}/tokens`) {
      return route.fulfill({ json: { tokens: [{ token_id: 'tok_1', workspace_id: STUB_WORKSPACE, scopes: ['metrics:read'], site_ids: null, tenant_ids: null, created_at: '2025-06-01T10:00:00.000Z', rotated_at: null, revoked_at: null }] } });
    }
    return route.fulfill({ status: 404, json: envelope('NOT_FOUND', 'Unknown endpoint of the management API.') });
  });
}

/** A management API that fails (503 on every call): the pages say so rather than ask for a sign-in. */
export async function failManagementApi(context: BrowserContext): Promise<void> {
  await context.route('**/app/api/**', (route) => route.fulfill({ status: 503, json: envelope('INTERNAL_ERROR', 'Unavailable.') }));
}
