// The management API (/app/api) as one encapsulated Fastify plugin: its own cookie parsing, error
// envelope (the management catalog), 404/405, routes and OpenAPI document. Nothing of it leaks into
// the read API's routes or document.
import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../services/deps.js';
import { dummyHash } from '../../services/people/sign-in.js';
import { appApiDeps } from './app-api-deps.js';
import { registerDashboardReads } from './dashboard-reads.js';
import { registerAppApiErrors } from './app-api-errors.js';
import { APP_API_PREFIX } from './app-api-prefix.js';
import type { AppRoute } from './define-app-route.js';
import { appApiDocument } from './openapi-document.js';
import { appApiRoutes } from './routes/index.js';

export async function registerAppApi(app: FastifyInstance, deps: AppDeps, routes: readonly AppRoute[] = appApiRoutes): Promise<void> {
  const d = appApiDeps(deps);
  if (!d) return;
  // Made now, so the first unknown email costs one verification like every later one.
  void dummyHash(d.hasher).catch(() => undefined);
  await app.register(
    async (scope) => {
      await scope.register(cookie);
      registerAppApiErrors(scope);
      for (const def of routes) def.register(scope, d);
      await registerDashboardReads(scope, d);
      let doc: Record<string, unknown> | undefined;
      scope.get('/openapi.json', { schema: { hide: true } }, async () => (doc ??= appApiDocument(routes)));
    },
    { prefix: APP_API_PREFIX },
  );
}
