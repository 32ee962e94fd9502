// What a share link opens under /share/<slug>: its page, and its API (its reads, their batch, its password).
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../services/deps.js';
import type { WebBundle } from '../pages/web-assets.js';
import { embedReadRoutes } from '../v1/index.js';
import { registerShareApi } from './share-api.js';
import { registerSharePage } from './share-page.js';

export async function registerShare(app: FastifyInstance, deps: AppDeps, bundle: () => WebBundle | null): Promise<void> {
  await registerSharePage(app, deps, bundle);
  await registerShareApi(app, deps, embedReadRoutes);
}
