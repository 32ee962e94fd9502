// Where one request's time goes, measured from outside the request pipeline: the container's ports
// (catalog, limiter, ledger, analytics engine) are wrapped in proxies that time every call and charge
// it to a stage. Each stage counts the wall time during which at least one of its calls was running
// (calls of one stage overlap: the data version and the site facts, a report's reads), so with one
// request at a time a request's stages are exact and "other" (routing, validation, assembling and
// serializing the answer) is its total less theirs. Not a bench itself (no `run`).
import type { Container } from '../src/container.js';

export const STAGES = ['authenticate', 'site access', 'rate limit', 'meter', 'version+facts', 'reads'] as const;
export type Stage = (typeof STAGES)[number];

const CATALOG_AUTH = new Set(['findTokenByHash', 'getToken', 'getWorkspace']);
const ENGINE_FACTS = new Set(['dataVersion', 'firstEventAt', 'newestEventAt']);
const LEDGER_METER = new Set(['reserve', 'commit', 'charge', 'release']);

export class StageClock {
  private spent = new Map<Stage, number>();
  private active = new Map<Stage, { n: number; since: number }>();

  /** The stage totals since the last call, and a fresh start. */
  take(): Record<Stage, number> {
    const out = Object.fromEntries(STAGES.map((s) => [s, this.spent.get(s) ?? 0])) as Record<Stage, number>;
    this.spent.clear();
    return out;
  }

  private enter(stage: Stage): void {
    const a = this.active.get(stage);
    if (a && a.n > 0) a.n++;
    else this.active.set(stage, { n: 1, since: performance.now() });
  }

  private leave(stage: Stage): void {
    const a = this.active.get(stage)!;
    if (--a.n === 0) this.spent.set(stage, (this.spent.get(stage) ?? 0) + performance.now() - a.since);
  }

  /** `port` with every promise-returning method the stage `of` names (undefined: not timed) charged to it. */
  wrap<T extends object>(port: T, of: (method: string) => Stage | undefined): T {
    return new Proxy(port, {
      get: (obj, prop, receiver) => {
        const value = Reflect.get(obj, prop, receiver);
        const stage = typeof prop === 'string' && typeof value === 'function' ? of(prop) : undefined;
        if (!stage) return typeof value === 'function' ? value.bind(obj) : value;
        return (...args: unknown[]) => {
          this.enter(stage);
          let out: unknown;
          try {
            out = (value as (...a: unknown[]) => unknown).apply(obj, args);
          } catch (e) {
            this.leave(stage);
            throw e;
          }
          if (!(out instanceof Promise)) {
            this.leave(stage);
            return out;
          }
          return out.finally(() => this.leave(stage));
        };
      },
    });
  }

  /** Wraps the container's ports in place (before the app is built on it). */
  instrument(c: Container): void {
    c.catalog = this.wrap(c.catalog, (m) => (CATALOG_AUTH.has(m) ? 'authenticate' : 'site access'));
    c.limiter = this.wrap(c.limiter, (m) => (m === 'hit' ? 'rate limit' : undefined));
    c.ledger = this.wrap(c.ledger, (m) => (LEDGER_METER.has(m) ? 'meter' : undefined));
    const a = c.analytics!;
    c.analytics = { ...a, engine: this.wrap(a.engine, (m) => (ENGINE_FACTS.has(m) ? 'version+facts' : 'reads')) };
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2 : 0;
};

/** One line per stack: the median ms of each stage over a case's requests, "other" and the total. */
export function stageLine(requests: { total: number; stages: Record<Stage, number> }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of STAGES) out[s] = +median(requests.map((r) => r.stages[s])).toFixed(1);
  out.other = +median(requests.map((r) => r.total - STAGES.reduce((n, s) => n + r.stages[s], 0))).toFixed(1);
  out.total = +median(requests.map((r) => r.total)).toFixed(1);
  return out;
}
