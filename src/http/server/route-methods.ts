// Which methods each path answers: the one record behind every 405 (with Allow) and 404 of the server,
// whatever answers it (the read API's envelope, the management API's, or a request line Node refused
// before any routing). Filled by an onRoute hook as routes are added (never by hand), so a route is
// known the day it lands; path patterns match as the router does (`:name` is one segment).
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** the methods each registered path answers (server/route-methods.ts) */
    routeMethods: RouteMethods;
  }
}

const literal = (segment: string) => segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export class RouteMethods {
  private readonly exact = new Map<string, string[]>();
  private readonly patterns: { re: RegExp; methods: string[] }[] = [];

  add(url: string, method: string): void {
    let methods: string[] | undefined;
    if (!url.includes(':') && !url.includes('*')) {
      methods = this.exact.get(url);
      if (!methods) this.exact.set(url, (methods = []));
    } else {
      const source =
        '^' +
        url
          .split('/')
          .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : literal(seg)))
          .join('/') +
        '$';
      let p = this.patterns.find((x) => x.re.source === source);
      if (!p) this.patterns.push((p = { re: new RegExp(source), methods: [] }));
      methods = p.methods;
    }
    if (!methods.includes(method)) methods.push(method);
  }

  /** The methods routes answer at `path`, in the order they were added; empty for an unknown path. */
  at(path: string): string[] {
    const out = new Set(this.exact.get(path) ?? []);
    for (const p of this.patterns) if (p.re.test(path)) for (const m of p.methods) out.add(m);
    return [...out];
  }
}

/** Decorates the app with `methods` and fills it as every route (of any scope) is added. */
export function recordRouteMethods(app: FastifyInstance, methods: RouteMethods): void {
  app.decorate('routeMethods', methods);
  app.addHook('onRoute', (route) => {
    if (typeof route.url !== 'string') return;
    for (const m of [route.method].flat()) methods.add(route.url, m);
  });
}
