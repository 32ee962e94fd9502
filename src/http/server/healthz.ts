// GET and HEAD /healthz: no auth, outside /v1; 200 once every store answers (HEAD for uptime
// monitors that ask without a body), 503 with Retry-After while one does not.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../services/deps.js';
import { RETRY_AFTER_SECONDS } from './error-envelope.js';
import { StringEnum } from '../schemas/common.js';

const Check = StringEnum(['up', 'down'] as const);
const Health = Type.Object(
  {
    status: StringEnum(['ok', 'unavailable'] as const),
    checks: Type.Object(
      { control: Check, events: Type.Optional(Check) },
      { description: 'control: the control plane; events: the analytics store' },
    ),
  },
  { title: 'Health', description: 'The server and its stores' },
);

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
  app.route({
    method: ['GET', 'HEAD'],
    url: '/healthz',
    schema: {
      operationId: 'getHealth',
      summary: 'Liveness of the server and its stores',
      tags: ['Operations'],
      response: { 200: Health, 503: Health },
    },
    handler: async (request, reply) => {
      const control = (await probe(() => deps.catalog.ping())) ?? 'down';
      const events = await probe(deps.events?.ping?.bind(deps.events));
      const ok = control === 'up' && events !== 'down';
      if (!ok) {
        request.log.warn({ control, events }, 'health check failed');
        reply.header('Retry-After', RETRY_AFTER_SECONDS.ANALYTICS_DB_UNAVAILABLE);
      }
      return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', checks: { control, ...(events ? { events } : {}) } });
    },
  });
}
