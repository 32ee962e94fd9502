// Where one request's time goes, stage by stage: wraps the ports of a running server's container in
// timers (the control plane's reads, the rate limiter, the units, the data version and the engine's
// reads, the response cache) and sums each stage's time while requests run one at a time, so that every
// stage's sum belongs to the one request in flight. What is left of a request's time is the HTTP
// server, routing, validation, serialization and the write. Not a bench itself (no `run`).
import type { Container } from '../../src/container.js';

export const STAGES = ['control plane', 'rate limit', 'units', 'data version', 'query', 'cache'] as const;
export type Stage = (typeof STAGES)[number];

/** Which stage each timed method of each port is. */
const PORTS: Record<string, { of: (c: Container) => object | null | undefined; methods: Record<string, Stage> }> = {
  catalog: {
    of: (c) => c.catalog,
    methods: { findTokenWithWorkspace: 'control plane', findTokenByHash: 'control plane', getWorkspace: 'control plane', getSite: 'control plane', getTenant: 'control plane' },
  },
  limiter: { of: (c) => c.limiter, methods: { hit: 'rate limit' } },
  ledger: { of: (c) => c.ledger, methods: { reserve: 'units', commit: 'units', charge: 'units', release: 'units', used: 'units' } },
  engine: {
    of: (c) => c.analytics?.engine,
    methods: {
      dataVersion: 'data version',
      firstEventAt: 'data version',
      newestEventAt: 'data version',
      run: 'query',
      actionRows: 'query',
      actionTotals: 'query',
      goalMatches: 'query',
      pageTitles: 'query',
    },
  },
  cache: { of: (c) => c.analytics?.cache, methods: { get: 'cache', set: 'cache' } },
};

export interface StageTimer {
  /** the time each stage took since the last take(), ms */
  take(): Record<Stage, number>;
}

export function timeStages(container: Container): StageTimer {
  const spent = Object.fromEntries(STAGES.map((s) => [s, 0])) as Record<Stage, number>;
  for (const { of, methods } of Object.values(PORTS)) {
    const port = of(container) as Record<string, unknown> | null | undefined;
    if (!port) continue;
    for (const [method, stage] of Object.entries(methods)) {
      const original = port[method];
      if (typeof original !== 'function') continue;
      port[method] = async (...args: unknown[]) => {
        const t = performance.now();
        try {
          return await (original as (...a: unknown[]) => Promise<unknown>).apply(port, args);
        } finally {
          spent[stage] += performance.now() - t;
        }
      };
    }
  }
  return {
    take() {
      const out = { ...spent };
      for (const s of STAGES) spent[s] = 0;
      return out;
    },
  };
}
