// GET /healthz: no auth, outside /v1; 200 once every store answers.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../services/deps.js';
import { StringEnum } from '../schemas/common.js';

const Check = StringEnum(['up', 'down'] as const);
const Health = Type.Object({
  status: StringEnum(['ok', 'unavailable'] as const),
  checks: Type.Object({ control: Check, events: Type.Optional(Check) }),
});

async function probe(fn: (() => Promise<void>) | undefined): Promise<'up' | 'down' | undefined> {
  if (!fn) return undefined;
  try {
    await fn();
    return 'up';
  } catch {
    return 'down';
  }
}

export function registerHealthz(app: FastifyInstance, deps: AppDeps): void {
  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Liveness of the server and its stores',
        tags: ['Operations'],
        response: { 200: Health, 503: Health },
      },
    },
    async (request, reply) => {
      const control = (await probe(() => deps.catalog.ping())) ?? 'down';
      const events = await probe(deps.events?.ping?.bind(deps.events));
      const ok = control === 'up' && events !== 'down';
      if (!ok) request.log.warn({ control, events }, 'health check failed');
      return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', checks: { control, ...(events ? { events } : {}) } });
    },
  );
}
