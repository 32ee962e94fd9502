// Where one request's time goes, measured from outside the request pipeline: the container's ports
// (catalog, limiter, ledger, analytics engine) are wrapped in proxies that time every call and charge
// it to a stage. Each stage counts the wall time during which at least one of its calls was running
// (calls of one stage overlap: the data version and the site facts, a report's reads), so with one
// request at a time a request's stages are exact and "other" (routing, validation, assembling and
// serializing the answer) is its total less theirs. Not a bench itself (no `run`).
import type { Container } from '../src/container.js';

export const STAGES = ['authenticate', 'site access', 'rate limit', 'meter', 'version+facts', 'reads'] as const;
export type Stage = (typeof STAGES)[number];

// findTokenWithWorkspace reads the request's site in the same statement as the token: authenticate
const CATALOG_AUTH = new Set(['findTokenWithWorkspace', 'findTokenByHash', 'getToken', 'getWorkspace']);
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

  /** `fn` of `obj`, charged to `stage`. */
  private timed(obj: object, fn: (...a: unknown[]) => unknown, stage: Stage) {
    return (...args: unknown[]) => {
      this.enter(stage);
      let out: unknown;
      try {
        out = fn.apply(obj, args);
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
  }

  /** `port` with every promise-returning method the stage `of` names (undefined: not timed) charged to it. */
  wrap<T extends object>(port: T, of: (method: string) => Stage | undefined): T {
    return new Proxy(port, {
      get: (obj, prop, receiver) => {
        const value = Reflect.get(obj, prop, receiver);
        const stage = typeof prop === 'string' && typeof value === 'function' ? of(prop) : undefined;
        if (!stage) return typeof value === 'function' ? value.bind(obj) : value;
        return this.timed(obj, value as (...a: unknown[]) => unknown, stage);
      },
    });
  }

  /** Wraps the container's ports (before the app is built on it). */
  instrument(c: Container): void {
    c.catalog = this.wrap(c.catalog, STAGE_OF.catalog);
    c.limiter = this.wrap(c.limiter, STAGE_OF.limiter);
    c.ledger = this.wrap(c.ledger, STAGE_OF.ledger);
    const a = c.analytics!;
    c.analytics = { ...a, engine: this.wrap(a.engine, STAGE_OF.engine) };
  }

  /**
   * Times the ports of a server already running on `c` (its app holds the same port objects): their
   * methods are replaced on the objects themselves, so the requests before this call paid nothing.
   */
  instrumentInPlace(c: Container): void {
    const ports: [object | undefined, (m: string) => Stage | undefined, readonly string[]][] = [
      [c.catalog, STAGE_OF.catalog, [...CATALOG_AUTH, 'getSite', 'getTenant']],
      [c.limiter, STAGE_OF.limiter, ['hit']],
      [c.ledger, STAGE_OF.ledger, [...LEDGER_METER]],
      [c.analytics?.engine, STAGE_OF.engine, [...ENGINE_FACTS, 'run', 'actionRows', 'actionTotals', 'goalMatches', 'pageTitles']],
    ];
    for (const [port, of, methods] of ports) {
      if (!port) continue;
      // each port's own methods a request calls, by name: a method replaced on the object is also what
      // the port's own code calls through `this`, and an inner call charged to a stage would count twice
      for (const name of methods) {
        const value = (port as Record<string, unknown>)[name];
        const stage = typeof value === 'function' ? of(name) : undefined;
        if (stage) (port as Record<string, unknown>)[name] = this.timed(port, value as (...a: unknown[]) => unknown, stage);
      }
    }
  }
}

/** The stage of each port's methods (undefined: not timed). */
const STAGE_OF: Record<'catalog' | 'limiter' | 'ledger' | 'engine', (method: string) => Stage | undefined> = {
  catalog: (m) => (CATALOG_AUTH.has(m) ? 'authenticate' : 'site access'),
  limiter: (m) => (m === 'hit' ? 'rate limit' : undefined),
  ledger: (m) => (LEDGER_METER.has(m) ? 'meter' : undefined),
  engine: (m) => (ENGINE_FACTS.has(m) ? 'version+facts' : 'reads'),
};

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
