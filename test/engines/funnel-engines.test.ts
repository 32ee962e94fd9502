// The funnel read (compile-funnel.ts) on generated events: DuckDB against a plain-JS reference of the
// rule (docs/metrics.md "Funnels"), then one ClickHouse server and two shards against DuckDB, on the
// same imports. The draws put a quarter of the events on an hour's first instant, so equal times
// between steps come up in every data set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DuckDbAnalyticsEngine } from '../../src/engines/duckdb/duckdb-analytics-engine.js';
import { openDuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import type { FunnelStep } from '../../src/domain/funnels.js';
import type { QueryFilter } from '../../src/domain/query-api/query-body.js';
import type { StoredEvent, StoredSession } from '../../src/domain/events.js';
import type { EventRow, EventStore } from '../../src/ports/event-store.js';
import type { AnalyticsEngine, FunnelStepsRequest, ReadScope } from '../../src/ports/analytics-engine.js';
import { BASE_MS, DAY, SITE, eventDrawArb, sessionize, stamp } from './analytics-fixtures.js';
import { openScratch, skipReason } from './clickhouse-scratch.js';
import { propertySeed, runs, seeded } from '../helpers/property-runs.js';

const options = { timeoutMs: 30_000 };
const reidentify = (row: EventRow, occurrence: number) => `${row.event_id}~${occurrence}`;

/** Events of a seed: the fixture's draws, a few actions named by event_name as well. */
function events(seed: number): StoredEvent[] {
  const draws = fc.sample(eventDrawArb([SITE, 'site_b']), { seed, numRuns: 700 });
  return stamp(draws, { [SITE]: { profile: 'extended', effectiveAtMs: null } }).map((e, i) =>
    e.type === 'action' && i % 4 === 0 ? { ...e, event_name: 'Signup' } : e,
  );
}

const stepArb: fc.Arbitrary<FunnelStep> = fc.oneof(
  fc.constantFrom('/', '/a', '/a*', '/b', '*', '/caf*', '/a/b', '/Z').map((pattern) => ({ kind: 'page' as const, pattern })),
  fc.constantFrom('signup', 'Signup', 'form.submit', 'outbound.click').map((name) => ({ kind: 'event' as const, name })),
);
const scopes: ReadScope[] = [
  { siteId: SITE, tenantIds: null, trafficClasses: ['human', 'ai_agent'] },
  { siteId: SITE, tenantIds: ['t1', 't2'], trafficClasses: ['human'] },
];
const windows = [
  { startMs: BASE_MS, endMs: BASE_MS + 3 * DAY },
  // a window starting and ending inside days, as a site's zone makes them
  { startMs: BASE_MS + 5 * 3_600_000 + 45 * 60_000, endMs: BASE_MS + 2 * DAY + 5 * 3_600_000 + 45 * 60_000 },
];
const filterSets: QueryFilter[][] = [
  [],
  [{ op: 'is', dimension: 'visit:country', clauses: ['DE'], caseSensitive: true }],
  [{ op: 'is_not', dimension: 'event:page', clauses: ['/b'], caseSensitive: true }],
];
const requestArb: fc.Arbitrary<FunnelStepsRequest> = fc.record({
  scope: fc.constantFrom(...scopes),
  window: fc.constantFrom(...windows),
  steps: fc.array(stepArb, { minLength: 2, maxLength: 5 }),
  filters: fc.constantFrom(...filterSets),
  goals: fc.constant([]),
});

/** A page pattern as a regular expression: `*` any run, the rest literal, anchored. */
const patternRe = (p: string) =>
  new RegExp(
    `^${p
      .split('*')
      .map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    's',
  );

function stepMatches(s: FunnelStep, e: StoredEvent): boolean {
  if (s.kind === 'page') return e.type === 'pageview' && e.path_canon !== null && patternRe(s.pattern).test(e.path_canon);
  return e.type === 'action' && (e.event_name === s.name || e.action_name === s.name);
}

/** The rule in plain JS: per session in scope, the earliest reach of each step not before the one before. */
function reference(
  data: { events: (StoredEvent & { session_id: string })[]; sessions: StoredSession[] },
  req: FunnelStepsRequest,
): number[] {
  const { scope, window: w } = req;
  const inScope = (x: { site_id: string; traffic_class: string; tenant_id: string | null }) =>
    x.site_id === scope.siteId &&
    (scope.trafficClasses as string[]).includes(x.traffic_class) &&
    (scope.tenantIds === null || (x.tenant_id !== null && scope.tenantIds.includes(x.tenant_id)));
  const visitOk = (s: StoredSession) =>
    req.filters.every((f) => !('dimension' in f) || f.dimension !== 'visit:country' || s.country === 'DE');
  const eventOk = (e: StoredEvent) =>
    req.filters.every((f) => !('dimension' in f) || f.dimension !== 'event:page' || e.path_canon !== '/b');
  const dayEnd = Math.ceil(w.endMs / DAY) * DAY;
  const bySession = new Map<string, StoredEvent[]>();
  for (const e of data.events)
    if (inScope(e) && e.ts_ms >= w.startMs && e.ts_ms < dayEnd && eventOk(e)) {
      if (!bySession.has(e.session_id)) bySession.set(e.session_id, []);
      bySession.get(e.session_id)!.push(e);
    }
  const reached = req.steps.map(() => new Set<string>());
  for (const s of data.sessions) {
    if (!inScope(s) || s.start_ms < w.startMs || s.start_ms >= w.endMs || !visitOk(s)) continue;
    const evs = bySession.get(s.session_id) ?? [];
    let t = -Infinity;
    for (const [k, step] of req.steps.entries()) {
      const hits = evs.filter((e) => e.ts_ms >= t && stepMatches(step, e)).map((e) => e.ts_ms);
      if (!hits.length) break;
      t = Math.min(...hits);
      reached[k].add(`${Math.floor(s.start_ms / DAY)}|${s.visitor_key}`);
    }
  }
  return reached.map((r) => r.size);
}

async function load(store: EventStore, rows: StoredEvent[]) {
  await store.importBatch(
    rows.map((e) => ({ ...e, channel: 'Direct', prop_keys: [], prop_values: [] }) as EventRow),
    { reidentify },
  );
}

test('DuckDB funnel steps equal the plain-JS rule on generated events', async () => {
  await seeded(async (seed) => {
    const rows = events(seed);
    const data = sessionize(rows, () => 'Direct');
    const duck = await openDuckDbEventStore({ file: ':memory:' });
    try {
      await load(duck, rows);
      const engine = new DuckDbAnalyticsEngine({ connect: () => duck.instance.connect(), release: (c) => c.closeSync() });
      let deep = 0;
      await fc.assert(
        fc.asyncProperty(requestArb, async (req) => {
          const got = await engine.funnelSteps(req, options);
          assert.deepEqual(got, reference(data, req), JSON.stringify(req));
          if (got.at(-1)! > 0) deep++;
        }),
        { seed: propertySeed, numRuns: runs(60) },
      );
      assert.ok(deep > 0, 'some funnel is reached to its last step');
    } finally {
      await duck.close();
    }
  });
});

const skip = skipReason('single') || skipReason('cluster');

test('one ClickHouse server and two shards give DuckDB funnel steps on the same imports', { skip }, async () => {
  await seeded(async (seed) => {
    const rows = events(seed);
    const duck = await openDuckDbEventStore({ file: ':memory:' });
    const single = await openScratch('single');
    const cluster = await openScratch('cluster');
    try {
      const engines: [string, EventStore, AnalyticsEngine][] = [
        ['duckdb', duck, new DuckDbAnalyticsEngine({ connect: () => duck.instance.connect(), release: (c) => c.closeSync() })],
        ['clickhouse', single.store, single.engine],
        ['clickhouse x2', cluster.store, cluster.engine],
      ];
      for (const [, store] of engines) await load(store, rows);
      const requests = fc.sample(requestArb, { seed, numRuns: runs(25) });
      requests.push({
        scope: scopes[0],
        window: windows[0],
        steps: [...requests[0].steps, { kind: 'page' as const, pattern: '*' }].slice(0, 8),
        filters: [],
        goals: [],
      });
      for (const req of requests) {
        const [d, s, c] = await Promise.all(engines.map(([, , e]) => e.funnelSteps(req, options)));
        assert.deepEqual(s, d, `one server: ${JSON.stringify(req)}`);
        assert.deepEqual(c, d, `two shards: ${JSON.stringify(req)}`);
      }
    } finally {
      await duck.close();
      await single.close();
      await cluster.close();
    }
  });
});
