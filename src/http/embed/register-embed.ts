// What an embed opens under /embed: its page, and its read batch (the reads of /v1 with its bearer).
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../services/deps.js';
import { embedStrategy } from '../pipeline/auth-strategy.js';
import { registerReadBatch } from '../pipeline/read-batch-route.js';
import type { WebBundle } from '../pages/web-assets.js';
import { embedReadRoutes } from '../v1/index.js';
import { registerEmbedPage } from './embed-page.js';

export async function registerEmbed(app: FastifyInstance, deps: AppDeps, bundle: () => WebBundle | null): Promise<void> {
  await app.register(
    async (scope) => {
      registerEmbedPage(scope, deps, bundle);
      registerReadBatch(scope, deps, {
        url: '/api/reads',
        strategy: embedStrategy,
        routes: embedReadRoutes,
        target: () => ({ prefix: '', credential: 'authorization' }),
      });
    },
    { prefix: '/embed' },
  );
}
