// The routes an app really registers, read from Fastify as they are added (not listed by hand), with the
// harness that built the app: what route-security.test.ts and route-fuzz.test.ts walk.
import { channel } from 'node:diagnostics_channel';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { harness, type Harness, type HarnessOptions } from './harness.js';
import type { Registered } from './route-rules.js';

/** A harness, and every (method, url) its app registered, in the order they were added. */
export async function harnessWithRoutes(options: HarnessOptions = {}): Promise<{ h: Harness; registered: Registered[] }> {
  const seen = new Map<FastifyInstance, Registered[]>();
  // Fastify announces each new instance on this channel before any route is added: the hook sees them all.
  const init = channel('fastify.initialization');
  const onInit = (message: unknown) => {
    const fastify = (message as { fastify: FastifyInstance }).fastify;
    const list: Registered[] = [];
    seen.set(fastify, list);
    fastify.addHook('onRoute', (route: RouteOptions) => {
      const authenticated = Array.isArray(route.schema?.security) && route.schema.security.length > 0;
      const strategy = (route.config as { strategy?: string } | undefined)?.strategy;
      const hidden = (route.schema as { hide?: boolean } | undefined)?.hide === true;
      for (const method of [route.method].flat()) list.push({ method, url: route.url, authenticated, strategy, security: route.schema?.security, hidden });
    });
  };
  init.subscribe(onInit);
  let h: Harness;
  try {
    h = await harness(options);
  } finally {
    init.unsubscribe(onInit);
  }
  return { h, registered: seen.get(h.app) ?? [] };
}
