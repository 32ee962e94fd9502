// Rollup reads of one slice started together share one statement on ClickHouse
// (compile-rollup-slice.ts, compile-actions-slice.ts): every answer must be the one the read gets from a statement of its own,
// on one server and on two shards, unpinned and pinned (QuerySpecs and action rows); and overview and
// actions requests send fewer statements.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ClickHouseAnalyticsEngine } from '../../src/engines/clickhouse/clickhouse-analytics-engine.js';
import type { EventRow } from '../../src/ports/event-store.js';
import type { QuerySpec } from '../../src/domain/query/query-spec.js';
import type { MetricRow } from '../../src/domain/query/assemble.js';
import { DIMENSIONS } from '../../src/domain/query/dimensions.js';
import { buildOverview } from '../../src/services/reports/overview-report.js';
import { buildActions } from '../../src/services/reports/actions-report.js';
import type { ActionGroupKey, ActionSelection } from '../../src/ports/analytics-engine.js';
import { ReportKit, readsOf } from '../../src/services/reports/report-kit.js';
import { BASE_MS, DAY, SITE, eventDrawArb, stamp } from './analytics-fixtures.js';
import { openScratch, skipReason, type Topology } from './clickhouse-scratch.js';
import { specArb } from './clickhouse-specs.js';

const options = { timeoutMs: 20_000 };

function events(): EventRow[] {
  const draws = fc.sample(eventDrawArb([SITE, 'site_b']), { seed: 4242, numRuns: 500 });
  const rows = stamp(draws, { [SITE]: { profile: 'extended', effectiveAtMs: null } });
  return rows.map((e, i) => ({ ...e, channel: draws[i].channel, prop_keys: [], prop_values: [] }));
}

/** Specs that share slices: every stored grouping over two windows and two scopes, with filters and key lists, plus random ones. */
function specs(): QuerySpec[] {
  const out: QuerySpec[] = [];
  const windows = [
    { startMs: BASE_MS, endMs: BASE_MS + 3 * DAY - 1 },
    { startMs: BASE_MS + DAY, endMs: BASE_MS + 2 * DAY - 1 },
  ];
  const scopes = [
    { siteId: SITE, tenantIds: null, trafficClasses: ['human', 'ai_agent'] },
    { siteId: SITE, tenantIds: ['t1'], trafficClasses: ['human'] },
  ] as const;
  for (const w of windows) {
    for (const s of scopes) {
      const base = { ...s, ...w, filters: {} };
      out.push({ ...base, metrics: ['pageviews', 'sessions', 'visitors', 'bounce_rate'] });
      out.push({ ...base, metrics: ['sessions', 'visitors'], interval: 'day' });
      for (const dimension of DIMENSIONS) out.push({ ...base, metrics: ['sessions', 'pageviews', 'engagement_rate'], dimension, limit: 3 });
      out.push({ ...base, metrics: ['sessions'], dimension: 'referrer', splitBy: 'channel' });
      out.push({ ...base, metrics: ['sessions', 'bounce_rate'], dimension: 'entry_page', splitBy: 'channel', limit: 4 });
      out.push({ ...base, metrics: ['sessions'], dimension: 'city', splitBy: 'country' });
      // the same groupings with key conditions: branches that cannot share a statement with the above
      out.push({ ...base, metrics: ['sessions'], dimension: 'region', filters: { country: 'DE' } });
      out.push({ ...base, metrics: ['sessions'], dimension: 'country', keyIn: ['DE', null] });
      out.push({ ...base, metrics: ['pageviews'], dimension: 'page', interval: 'day', keyIn: ['/', '/a'] });
      out.push({ ...base, metrics: ['sessions'], filters: { channel: 'Direct' } });
      out.push({ ...base, metrics: ['sessions'], filters: { channel: null } });
    }
  }
  return [...out, ...fc.sample(specArb, { seed: 99, numRuns: 120 })];
}

for (const topology of ['single', 'cluster'] as Topology[]) {
  test(`clickhouse ${topology}: reads sharing a statement answer as they do alone`, { skip: skipReason(topology) }, async () => {
    const ch = await openScratch(topology);
    try {
      await ch.store.importBatch(events());
      const parts = { coordinator: ch.shards[0], shards: ch.shards, layout: ch.layout };
      const alone = new ClickHouseAnalyticsEngine(parts, { shareRollupReads: false });
      const shared = new ClickHouseAnalyticsEngine(parts);
      const list = specs();
      const want: MetricRow[][] = [];
      for (const spec of list) want.push(await alone.run(spec, options));
      assert.ok(
        want.filter((rows) => rows.some((r) => Object.values(r.values).some((v) => v !== 0))).length > list.length / 2,
        'most reads find data',
      );

      for (const asOf of [undefined, await shared.dataVersion(SITE)]) {
        const before = shared.statements;
        const got = await Promise.all(list.map((spec) => shared.run(spec, { ...options, asOf })));
        const sent = shared.statements - before;
        list.forEach((spec, i) => {
          assert.deepEqual(got[i], want[i], `${asOf ? 'pinned' : 'unpinned'}: ${JSON.stringify(spec)}`);
        });
        assert.ok(sent > 0);
      }

      // action rows: every grouping of a selection (with and without the advanced days, a family, an action) at once
      const groupings: ActionGroupKey[][] = [
        [],
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
        ['day'],
      ];
      const selections: ActionSelection[] = [];
      for (const scope of [
        { siteId: SITE, tenantIds: null, trafficClasses: ['human', 'ai_agent'] },
        { siteId: SITE, tenantIds: ['t1'], trafficClasses: ['human'] },
      ] as const)
        for (const advanced of [null, { startMs: BASE_MS + DAY, endMs: BASE_MS + 2 * DAY - 1 }])
          for (const extra of [{}, { family: 'custom' as const }])
            selections.push({ scope, window: { startMs: BASE_MS, endMs: BASE_MS + 3 * DAY - 1 }, advanced, ...extra });
      const requests = selections.flatMap((selection) => groupings.map((groupBy) => ({ selection, groupBy })));
      const sorted = <T>(rows: T[]) => rows.map((r) => JSON.stringify(r)).sort();
      const wantActions: string[][] = [];
      for (const r of requests) wantActions.push(sorted(await alone.actionRows(r, options)));
      assert.ok(wantActions.filter((rows) => rows.length > 0).length > requests.length / 2, 'most action reads find rows');
      // totals with and without days go with them (of a family: from the events, never shared)
      const totals = selections.flatMap((selection) => [false, true].map((byDay) => ({ selection, byDay })));
      const wantTotals: string[][] = [];
      const seen = new Set<string>();
      for (const r of totals) {
        const rows = await alone.actionTotals(r, options);
        for (const t of rows) for (const [k, v] of Object.entries(t)) if (k !== 'day' && v !== 0) seen.add(k);
        wantTotals.push(sorted(rows));
      }
      assert.deepEqual(
        [...seen].sort(),
        ['errorSessions', 'instrumentationSessions', 'meaningfulOccurrences', 'meaningfulSessions'],
        'every total found data',
      );
      for (const asOf of [undefined, await shared.dataVersion(SITE)]) {
        const [got, gotTotals] = await Promise.all([
          Promise.all(requests.map((r) => shared.actionRows(r, { ...options, asOf }))),
          Promise.all(totals.map((r) => shared.actionTotals(r, { ...options, asOf }))),
        ]);
        requests.forEach((r, i) => {
          assert.deepEqual(sorted(got[i]), wantActions[i], `${asOf ? 'pinned' : 'unpinned'}: ${JSON.stringify(r)}`);
        });
        totals.forEach((r, i) => {
          assert.deepEqual(sorted(gotTotals[i]), wantTotals[i], `${asOf ? 'pinned' : 'unpinned'} totals: ${JSON.stringify(r)}`);
        });
      }

      // title reads of one scope over different windows and paths share one statement, each with its own answer
      const everyScope = { siteId: SITE, tenantIds: null, trafficClasses: ['human', 'ai_agent'] } as const;
      const pages = (
        await alone.run(
          { ...everyScope, startMs: BASE_MS, endMs: BASE_MS + 3 * DAY - 1, filters: {}, metrics: ['pageviews'], dimension: 'page' },
          options,
        )
      )
        .map((r) => r.key)
        .filter((k): k is string => k !== null);
      assert.ok(pages.length >= 4, `pages: ${pages.length}`);
      const titleReads = [
        { scope: everyScope, window: { startMs: BASE_MS + DAY, endMs: BASE_MS + 2 * DAY - 1 }, paths: pages.slice(0, -1) },
        { scope: everyScope, window: { startMs: BASE_MS, endMs: BASE_MS + 3 * DAY - 1 }, paths: [...pages.slice(1), '/nowhere'] },
        { scope: everyScope, window: { startMs: BASE_MS + 2 * DAY, endMs: BASE_MS + 3 * DAY - 1 }, paths: pages.slice(0, 2) },
      ];
      const wantTitles = [];
      for (const r of titleReads) wantTitles.push([...(await alone.pageTitles(r, options))].sort());
      assert.ok(
        wantTitles.every((t) => t.length > 0) && wantTitles[1].length > wantTitles[2].length,
        JSON.stringify(wantTitles.map((t) => t.length)),
      );
      const beforeTitles = shared.statements;
      const gotTitles = await Promise.all(titleReads.map((r) => shared.pageTitles(r, options)));
      assert.deepEqual(
        gotTitles.map((t) => [...t].sort()),
        wantTitles,
        'titles',
      );
      // the data version, then one statement per server
      assert.equal(shared.statements - beforeTitles, 1 + ch.shards.length);

      // an overview request: the lists of its range share one statement per server
      const scope = { siteId: SITE, tenantIds: null, trafficClasses: ['human', 'ai_agent'] } as const;
      const days = { from: '2025-03-01', to: '2025-03-03', days: 3, startMs: BASE_MS, endMs: BASE_MS + 3 * DAY - 1 };
      const w = { days, count: { startMs: days.startMs, endMs: days.endMs }, sections: { overview_regions: days, overview_cities: days } };
      const params = { limit: 5, minAllowedFrom: null, lastEventAt: null };
      const overview = async (e: ClickHouseAnalyticsEngine) => {
        const asOf = await e.dataVersion(SITE);
        const before = e.statements;
        const payload = await buildOverview(new ReportKit(readsOf(e, { ...options, asOf }), scope), w, params);
        return { payload, sent: e.statements - before };
      };
      const a = await overview(alone);
      const b = await overview(shared);
      assert.deepEqual(b.payload, a.payload, 'overview payload');
      // per server: 13 reads in 8 lanes, then 2 title reads, alone; 3 statements (range lists, series, the period before) and 1 (both title reads), shared
      const servers = ch.shards.length;
      assert.equal(a.sent, 10 * servers, `alone: ${a.sent} statements`);
      assert.equal(b.sent, 4 * servers, `shared: ${b.sent} statements`);

      // an actions request: 14 reads in 8 lanes alone; shared, the sessions total with its series, the
      // two action totals with the family series, and the nine other action lists: 3 statements per server
      const actions = async (e: ClickHouseAnalyticsEngine) => {
        const asOf = await e.dataVersion(SITE);
        const before = e.statements;
        const payload = await buildActions(
          new ReportKit(readsOf(e, { ...options, asOf }), scope),
          { ...w, sections: { actions_advanced: days } },
          { limit: 5, family: null, action: null, goalsConfigured: false },
        );
        return { payload, sent: e.statements - before };
      };
      const c = await actions(alone);
      const d = await actions(shared);
      assert.deepEqual(d.payload, c.payload, 'actions payload');
      assert.equal(c.sent, 8 * servers, `alone: ${c.sent} statements`);
      assert.equal(d.sent, 3 * servers, `shared: ${d.sent} statements`);
    } finally {
      await ch.close();
    }
  });
}
