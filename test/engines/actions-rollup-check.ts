// The property both engines' actions-rollup tests hold: for random selections (tenants null / list /
// empty, every traffic filter and one non-filter set, whole and partial windows, advanced null /
// whole days / partial days / outside the window, family and action filters), every action read the
// actions report makes answers the same from the rollup as from the event scan.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { openDuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import { TRAFFIC_FILTERS, type ActionFamily, type TrafficClass } from '../../src/domain/events.js';
import type { ActionGroupKey, ActionSelection, AnalyticsEngine, ReadScope } from '../../src/ports/analytics-engine.js';
import type { MsWindow } from '../../src/domain/availability.js';
import { planActions } from '../../src/engines/sql/read/actions-plan.js';
import type { EventRow } from '../../src/ports/event-store.js';
import { BASE_MS, DAY, SITE, eventDrawArb, stamp } from './analytics-fixtures.js';

/** Fixed events over three days and two sites, with action attributes that vary. */
export function actionRows(seed: number, n: number): EventRow[] {
  const draws = fc.sample(eventDrawArb([SITE, 'site_b']), { seed, numRuns: n });
  const channel = new Map(draws.map((d, i) => [`ev${i}`, d.channel]));
  return stamp(draws, {}).map((e, i) => ({
    ...e,
    channel: channel.get(e.event_id)!,
    prop_keys: [],
    prop_values: [],
    ...(e.type === 'action' ? { action_id: i % 3 === 0 ? null : `id${i % 2}`, event_name: i % 5 === 0 ? 'named' : e.event_name } : {}),
  }));
}

/**
 * `ev` (a temp table of `c`): the stored events with what imports rarely hold: another class for some
 * events of a session, an unknown class, actions without a name, a simple action beside other ones.
 */
export async function edgeEventsTable(c: { run(sql: string): Promise<unknown> }): Promise<void> {
  await c.run(`CREATE TEMP TABLE ev AS SELECT * FROM events`);
  await c.run(
    `UPDATE ev SET traffic_class = CASE WHEN rowid % 7 = 0 THEN 'ai_agent' WHEN rowid % 11 = 0 THEN 'bot' WHEN rowid % 13 = 0 THEN 'no-such-class' ELSE traffic_class END`,
  );
  await c.run(`UPDATE ev SET action_name = NULL WHERE type = 'action' AND rowid % 17 = 0`);
  await c.run(`UPDATE ev SET action_name = 'ui.click' WHERE type = 'action' AND rowid % 5 = 1`);
}

type DuckConn = Awaited<ReturnType<Awaited<ReturnType<typeof openDuckDbEventStore>>['instance']['connect']>>;

/**
 * Runs `fn` on a connection of a throw-away DuckDB store holding actionRows(seed, 900) and the
 * edge-row table `ev` (edgeEventsTable); removes the store afterwards.
 */
export async function withEdgeRowsStore(seed: number, fn: (c: DuckConn) => Promise<void>): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-edge-rows-'));
  const store = await openDuckDbEventStore({ file: path.join(dir, 'events.duckdb'), threads: 2, tempDir: dir });
  const c = await store.instance.connect();
  try {
    await store.importBatch(actionRows(seed, 900), { reidentify: (row, occurrence) => `${row.event_id}~${occurrence}` });
    await edgeEventsTable(c);
    await fn(c);
  } finally {
    c.closeSync();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The two tables hold the same rows (as multisets), more than a thousand of them, and every one of
 * `groupings` (counted as distinct `key`) has rows.
 */
export async function assertSameBuiltRows(c: DuckConn, expected: string, actual: string, groupings: number, key: string): Promise<void> {
  const count = async (sql: string) => Number((await c.runAndReadAll(sql)).getRowsJS()[0]?.[0]);
  const n = await count(`SELECT count(*) FROM ${expected}`);
  assert.ok(n > 1000, `the build writes rows (${n})`);
  assert.equal(await count(`SELECT count(*) FROM ${actual}`), n);
  assert.equal(await count(`SELECT count(*) FROM (SELECT * FROM ${expected} EXCEPT ALL SELECT * FROM ${actual})`), 0);
  assert.equal(await count(`SELECT count(*) FROM (SELECT * FROM ${actual} EXCEPT ALL SELECT * FROM ${expected})`), 0);
  // every grouping has rows
  assert.equal(await count(`SELECT count(DISTINCT ${key}) FROM ${actual}`), groupings);
}

/** Every groupBy buildActions (services/reports/actions-report.ts) reads. */
export const REPORT_GROUPINGS: readonly (readonly ActionGroupKey[])[] = [
  ['family'],
  ['day', 'family'],
  ['action'],
  ['action', 'page'],
  ['action', 'channel'],
  ['page'],
  ['channel'],
  ['device'],
  ['country'],
  ['browser'],
];

const HOUR = 3_600_000;

export interface SelectionDraw {
  siteId: string;
  tenantIds: readonly string[] | null;
  trafficClasses: readonly TrafficClass[];
  window: MsWindow;
  advanced: MsWindow | null;
  family: ActionFamily | null;
  /** index into the site's action identities (null: no action filter) */
  action: number | null;
}

export const selectionArb = (sites: string[]): fc.Arbitrary<SelectionDraw> => {
  const whole = fc
    .tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 1, max: 3 }))
    .map(([d, n]) => ({ startMs: BASE_MS + d * DAY, endMs: BASE_MS + Math.min(d + n, 3) * DAY - 1 }));
  const partial = whole.map((w) => ({ startMs: w.startMs + 12 * HOUR, endMs: w.endMs }));
  const advanced = fc.oneof(
    fc.constant(null),
    whole,
    whole.map((w) => ({ startMs: w.startMs - 5 * DAY, endMs: w.endMs + 5 * DAY })), // covers the window and more
    partial, // not whole days: the scan answers
    fc.constant({ startMs: BASE_MS + 10 * DAY, endMs: BASE_MS + 11 * DAY - 1 }), // outside every window
  );
  return fc.record({
    siteId: fc.constantFrom(...sites),
    tenantIds: fc.constantFrom(null, ['t1'], ['t1', 't2'], ['t2', 'nope'], []),
    trafficClasses: fc.constantFrom<readonly TrafficClass[]>(
      ...Object.values(TRAFFIC_FILTERS),
      ['human', 'bot'],
      ['ai_bot', 'human', 'ai_agent', 'bot'],
    ),
    window: fc.oneof(whole, whole, whole, partial),
    advanced,
    family: fc.option(fc.constantFrom<ActionFamily>('goals', 'forms', 'outbound', 'downloads', 'errors', 'custom', 'instrumentation'), {
      nil: null,
    }),
    action: fc.option(fc.nat(20), { nil: null }),
  });
};

const norm = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).sort();

/**
 * Runs the property: `viaRollup` (reading the rollup where the planner allows) against `scan` (always
 * scanning). Returns how many reads the planner sent to the rollup.
 */
export async function checkActionsRollup(
  scan: AnalyticsEngine,
  viaRollup: AnalyticsEngine,
  sites: string[],
  opts: { numRuns: number },
): Promise<number> {
  const opt = { timeoutMs: 30_000 };
  const identities = new Map<string, ActionSelection['action'][]>();
  for (const siteId of sites) {
    const all = {
      scope: { siteId, tenantIds: null, trafficClasses: TRAFFIC_FILTERS.all },
      window: { startMs: BASE_MS, endMs: BASE_MS + 3 * DAY - 1 },
      advanced: { startMs: BASE_MS, endMs: BASE_MS + 3 * DAY - 1 },
    };
    identities.set(
      siteId,
      (await scan.actionRows({ selection: all, groupBy: ['action'] }, opt)).map((r) => r.action),
    );
  }
  let fromRollup = 0;
  await fc.assert(
    fc.asyncProperty(selectionArb(sites), async (draw) => {
      const ids = identities.get(draw.siteId)!;
      const scope: ReadScope = { siteId: draw.siteId, tenantIds: draw.tenantIds, trafficClasses: draw.trafficClasses };
      const selection: ActionSelection = {
        scope,
        window: draw.window,
        advanced: draw.advanced,
        ...(draw.family ? { family: draw.family } : {}),
        ...(draw.action !== null && ids.length ? { action: ids[draw.action % ids.length] } : {}),
      };
      for (const groupBy of REPORT_GROUPINGS) {
        const request = { selection, groupBy };
        const [a, b] = await Promise.all([scan.actionRows(request, opt), viaRollup.actionRows(request, opt)]);
        assert.deepEqual(norm(b), norm(a), `${groupBy.join('+')} of ${JSON.stringify(selection)}`);
        if (planActions(selection, groupBy).use === 'rollup') fromRollup++;
      }
      for (const byDay of [false, true]) {
        const request = { selection, byDay };
        const [a, b] = await Promise.all([scan.actionTotals(request, opt), viaRollup.actionTotals(request, opt)]);
        assert.deepEqual(norm(b), norm(a), `totals${byDay ? ' by day' : ''} of ${JSON.stringify(selection)}`);
        if (planActions(selection, 'totals').use === 'rollup') fromRollup++;
      }
    }),
    opts,
  );
  return fromRollup;
}
