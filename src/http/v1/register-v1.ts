// The read API, /v1: the contract's routes through the read pipeline, with tokens (and embed tokens
// where a route has an embed name). Their definitions carry the contract's paths, /v1 included: the
// dashboard (app-api/) and share links (share/) serve the same definitions again under their own prefixes.
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../services/deps.js';
import type { AnyRoute } from '../pipeline/define-route.js';
import { queryApiRoutes } from '../v2/index.js';
import { analyticsRoutes, platformRoutes } from './index.js';

export function registerV1(app: FastifyInstance, deps: AppDeps, extra: readonly AnyRoute[] = []): void {
  // /api/v2/query takes Plausible's path: scripts written for Plausible change only the host and the key;
  // /api/v2/funnel stands beside it
  for (const route of [...platformRoutes, ...analyticsRoutes, ...queryApiRoutes, ...extra]) route.register(app, deps);
}
