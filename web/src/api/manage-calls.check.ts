// Not bundled (nothing imports it): `tsc -p web` (npm run typecheck) checks here that manage() is typed by
// the generated document, so that a call the management API does not have fails to compile: each
// expected error below must occur, or the typecheck fails.
import { manage } from './manage.js';

export async function checks(): Promise<void> {
  // @ts-expect-error a path the document does not have
  await manage('GET', '/nope');
  // @ts-expect-error a method the path does not answer
  await manage('DELETE', '/workspaces');
  // @ts-expect-error the path's parameters are missing
  await manage('GET', '/sites/{site_id}');
  // @ts-expect-error a parameter the path does not name
  await manage('GET', '/sites/{site_id}', { path: { site: 's' } });
  // @ts-expect-error a body field the route does not take
  await manage('POST', '/session', { body: { email: 'e', password: 'p', remember: true } });
  // @ts-expect-error a body without a required field
  await manage('POST', '/session', { body: { email: 'e' } });
  // @ts-expect-error a value outside the field's enum
  await manage('PATCH', '/tenants/{tenant_id}', { path: { tenant_id: 't' }, body: { status: 'GONE' } });
  // @ts-expect-error a body for a route without one
  await manage('DELETE', '/session', { body: {} });
  // @ts-expect-error GET /reads answers NDJSON, not JSON: the readers stream it (read-batch.ts)
  await manage('GET', '/reads');

  // answers are the document's: JSON of the success status, null for a 204
  const session = await manage('GET', '/session');
  if (session.ok) session.data.workspaces.map((w) => w.role) satisfies ('owner' | 'admin' | 'viewer')[];
  const created = await manage('POST', '/workspaces/{workspace_id}/tokens', {
    path: { workspace_id: 'w' },
    body: { scopes: ['metrics:read'] },
  });
  if (created.ok) created.data.secret satisfies string;
  const removed = await manage('DELETE', '/goals/{goal_id}', { path: { goal_id: 'g' } });
  if (removed.ok) removed.data satisfies null;
}
