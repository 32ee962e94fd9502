// The gauges of events used and included per workspace, read at each scrape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PrometheusMetrics } from '../../src/http/prometheus/prometheus-metrics.js';

test('events used and included per workspace; unlimited has no included series; a failed read leaves no stale series', async () => {
  const m = new PrometheusMetrics();
  let fail = false;
  m.eventAllowance(async () => {
    if (fail) throw new Error('store down');
    return [
      { workspace_id: 'ws_a', used: 30_000, included: 25_000 },
      { workspace_id: 'ws_e', used: 7, included: null },
    ];
  });
  const text = await m.text();
  assert.match(text, /^footfall_workspace_events_used\{workspace="ws_a"\} 30000$/m);
  assert.match(text, /^footfall_workspace_events_included\{workspace="ws_a"\} 25000$/m);
  assert.match(text, /^footfall_workspace_events_used\{workspace="ws_e"\} 7$/m);
  assert.doesNotMatch(text, /footfall_workspace_events_included\{workspace="ws_e"\}/);
  fail = true;
  assert.doesNotMatch(await m.text(), /footfall_workspace_events_used\{/);
});
