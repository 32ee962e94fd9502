// The routes an app really registers, read from Fastify as they are added (never listed by hand), so
// that a suite walking them (route security, security headers, the route fuzz) covers a route the day it lands.
import { channel } from 'node:diagnostics_channel';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { harness, type Harness, type HarnessOptions } from './harness.js';
import type { Registered } from './route-rules.js';

/** Builds `T` (a harness holding `app`) and answers it with every route its app registered, each method apart. */
export async function withRegisteredRoutes<T extends { app: FastifyInstance }>(
  build: () => Promise<T>,
): Promise<{ built: T; registered: Registered[] }> {
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
      for (const method of [route.method].flat())
        list.push({ method, url: route.url, authenticated, strategy, security: route.schema?.security, hidden });
    });
  };
  init.subscribe(onInit);
  let built: T;
  try {
    built = await build();
  } finally {
    init.unsubscribe(onInit);
  }
  return { built, registered: seen.get(built.app) ?? [] };
}

/** A harness, and every (method, url) its app registered, in the order they were added. */
export async function harnessWithRoutes(options: HarnessOptions = {}): Promise<{ h: Harness; registered: Registered[] }> {
  const { built, registered } = await withRegisteredRoutes(() => harness(options));
  return { h: built, registered };
}
