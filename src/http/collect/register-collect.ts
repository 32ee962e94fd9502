// Live collection, when the process collects: POST /api/event (answered from node:http before Fastify
// routes it, collect-fast-path.ts) and the tracker script at /js/script.js.
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../services/deps.js';
import { registerCollectEvent } from './collect-event.js';
import { answerFirst } from './collect-fast-path.js';
import { registerTrackerScript } from './tracker-script.js';

export async function registerCollect(app: FastifyInstance, deps: AppDeps): Promise<void> {
  if (!deps.collector) return;
  answerFirst(app.server, await registerCollectEvent(app, { ...deps, collector: deps.collector }));
  registerTrackerScript(app);
}
