// Prometheus metrics on their own listener (FOOTFALL_METRICS_PORT): names, labels and counts after
// known requests, an import through the admin socket, and nothing kept when the port is unset.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config/config.js';
import { startServer } from '../../src/main.js';
import { generateSecret, hashSecret } from '../../src/domain/tokens.js';
import { runImport } from '../../src/ingest/pipeline/run-import.js';
import { openImportStores } from '../../src/container.js';

/** Prometheus text format -> `name{labels}` -> value (labels as written, sorted by prom-client). */
function parseExposition(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    out.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return out;
}

test('the metrics listener counts requests by route and status, durations, units, cache, engine calls, imports and collection', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-metrics-'));
  // live collection loads only when told (flush): the backlog is scraped before and after
  const server = await startServer(loadConfig({ dataDir, port: 0, metricsPort: 0, logLevel: 'silent' }, {}), {
    collect: { intervalMs: 3_600_000, triggerRecords: 1_000_000 },
  });
  try {
    assert.match(server.metricsAddress ?? '', /^http:\/\/127\.0\.0\.1:\d+$/, 'listens on 127.0.0.1 by default');
    const { catalog } = server.container;
    const ws = await catalog.createWorkspace({ name: 'w', plan: 'pro' });
    const site = await catalog.createSite({ workspaceId: ws.id, name: 's', hostnames: ['m.example'], collectionProfile: 'extended' });
    const secret = generateSecret(randomBytes);
    await catalog.createToken({ workspaceId: ws.id, scopes: ['metrics:read'], secretHash: hashSecret(secret) });

    // Two events committed through the running server's admin socket.
    const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const file = path.join(dataDir, 'in.ndjson');
    const line = (p: string, t: string) =>
      JSON.stringify({ ts: `${day}T${t}Z`, type: 'pageview', site_id: site.id, path: p, visitor_key: 'v1' });
    fs.writeFileSync(file, `${line('/a', '10:00:00')}\n${line('/b', '10:01:00')}\n`);
    const imported = await runImport({ open: () => openImportStores({ dataDir }), source: file, format: { kind: 'events' }, workers: 0 });
    assert.equal(imported.via, 'server');

    const auth = { authorization: `Bearer ${secret}` };
    const get = (url: string, headers: Record<string, string> = auth) => fetch(server.address + url, { headers });
    assert.equal((await get('/v1/usage/current')).status, 200);
    assert.equal((await get('/v1/me', {})).status, 401);
    assert.equal((await get('/nowhere/at/all')).status, 404);
    const series = `/v1/metrics/timeseries?site_id=${site.id}`; // 7 days by day, pageviews: 4 units
    for (let i = 0; i < 2; i++) {
      const r = await get(series);
      assert.equal(r.status, 200, await r.clone().text());
      assert.equal((await r.json()).meta.units_charged, 4);
    }

    // Live collection: a pageview, its engagement, an unknown domain, and two refusals.
    const collect = (body: string, type = 'text/plain') =>
      fetch(`${server.address}/api/event`, {
        method: 'POST',
        body,
        headers: { 'content-type': type, 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0' },
      });
    // the oldest waiting event is accepted between these two instants
    const acceptedAfter = Date.now();
    assert.equal((await collect(JSON.stringify({ n: 'pageview', u: 'https://m.example/a', d: 'm.example' }))).status, 202);
    const acceptedBefore = Date.now();
    assert.equal((await collect(JSON.stringify({ n: 'engagement', u: 'https://m.example/a', d: 'm.example', e: 1500 }))).status, 202);
    assert.equal((await collect(JSON.stringify({ n: 'pageview', u: 'https://elsewhere.example/', d: 'elsewhere.example' }))).status, 202);
    assert.equal((await collect('{"n": ')).status, 400);
    assert.equal((await collect('{}', 'application/x-www-form-urlencoded')).status, 415);

    // and its lag is read between these two
    const scrapedAfter = Date.now();
    const scrape = await fetch(`${server.metricsAddress}/metrics`);
    const scrapedBefore = Date.now();
    assert.equal(scrape.status, 200);
    assert.match(scrape.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const m = parseExposition(await scrape.text());
    const at = (key: string) => {
      assert.ok(m.has(key), `${key} is exposed`);
      return m.get(key)!;
    };
    assert.equal(at('footfall_http_requests_total{route="/v1/usage/current",status="200"}'), 1);
    assert.equal(at('footfall_http_requests_total{route="/v1/me",status="401"}'), 1);
    assert.equal(at('footfall_http_requests_total{route="unmatched",status="404"}'), 1);
    assert.equal(at('footfall_http_requests_total{route="/v1/metrics/timeseries",status="200"}'), 2);
    assert.equal(at('footfall_http_request_duration_seconds_count{route="/v1/metrics/timeseries"}'), 2);
    assert.equal(at('footfall_http_request_duration_seconds_bucket{le="+Inf",route="/v1/usage/current"}'), 1);
    assert.ok(at('footfall_http_request_duration_seconds_sum{route="/v1/usage/current"}') > 0);
    assert.equal(at('footfall_units_charged_total'), 8);
    assert.equal(at('footfall_response_cache_requests_total{result="miss"}'), 1);
    assert.equal(at('footfall_response_cache_requests_total{result="hit"}'), 1);
    assert.ok(at('footfall_engine_query_duration_seconds_count{engine="duckdb",outcome="ok"}') >= 1, 'the miss ran engine queries');
    assert.equal(at('footfall_import_batches_total'), 1);
    assert.equal(at('footfall_import_events_total{result="imported"}'), 2);
    assert.equal(at('footfall_import_events_total{result="duplicate"}'), 0);
    assert.equal(at('footfall_collection_events_total{outcome="accepted"}'), 1);
    assert.equal(at('footfall_collection_events_total{outcome="engagement"}'), 1);
    assert.equal(at('footfall_collection_events_total{outcome="ignored"}'), 1, 'an unknown domain');
    assert.equal(at('footfall_collection_events_total{outcome="rejected"}'), 2, 'bad JSON (400) and a wrong Content-Type (415)');
    assert.equal(at('footfall_http_requests_total{route="/api/event",status="202"}'), 3);
    // The pageview and its engagement wait for the loader (the unknown domain's event is not kept).
    assert.equal(at('footfall_collection_waiting_records'), 2);
    // how long the oldest has waited at the scrape: no less than from its 202 to the scrape's start, no more than from its request to the scrape's end
    const lagMs = at('footfall_collection_lag_seconds') * 1000;
    assert.ok(
      lagMs >= scrapedAfter - acceptedBefore && lagMs <= scrapedBefore - acceptedAfter,
      `lag ${lagMs} ms, within [${scrapedAfter - acceptedBefore}, ${scrapedBefore - acceptedAfter}]`,
    );
    assert.ok(!m.has('footfall_collection_load_duration_seconds_count{outcome="ok"}'), 'no load yet');
    // prom-client's process defaults
    assert.ok(at('process_cpu_user_seconds_total') > 0);
    assert.ok(at('nodejs_heap_size_used_bytes') > 0);
    // No URL becomes a label: the 404 path is not in the exposition.
    assert.ok(![...m.keys()].some((k) => k.includes('nowhere')));

    const other = await fetch(`${server.metricsAddress}/v1/me`);
    assert.equal(other.status, 404);
    const post = await fetch(`${server.metricsAddress}/metrics`, { method: 'POST' });
    assert.equal(post.status, 405);
    // A scrape is not an API request.
    const again = parseExposition(await (await fetch(`${server.metricsAddress}/metrics`)).text());
    assert.equal([...again.keys()].filter((k) => k.startsWith('footfall_http_requests_total')).length, 7);

    // Once loaded, nothing waits, and the load is timed.
    await server.collection!.flush();
    const loaded = parseExposition(await (await fetch(`${server.metricsAddress}/metrics`)).text());
    assert.equal(loaded.get('footfall_collection_waiting_records'), 0);
    assert.equal(loaded.get('footfall_collection_lag_seconds'), 0);
    assert.equal(loaded.get('footfall_collection_load_duration_seconds_count{outcome="ok"}'), 1);
    assert.ok(loaded.get('footfall_collection_load_duration_seconds_sum{outcome="ok"}')! > 0);
  } finally {
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  await assert.rejects(fetch(`${server.metricsAddress}/metrics`), 'the metrics port is closed with the server');
});

test('without a metrics port there is no listener and nothing is counted', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-metrics-'));
  const server = await startServer(loadConfig({ dataDir, port: 0, logLevel: 'silent' }, {}));
  try {
    assert.equal(server.metricsAddress, undefined);
    assert.equal(server.container.metrics, undefined);
    assert.equal(server.container.exposition, undefined);
  } finally {
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('FOOTFALL_METRICS_PORT and FOOTFALL_METRICS_HOST are parsed with the other settings', () => {
  const c = loadConfig({}, { FOOTFALL_METRICS_PORT: '9464' });
  assert.equal(c.metricsPort, 9464);
  assert.equal(c.metricsHost, '127.0.0.1');
  assert.equal(loadConfig({}, {}).metricsPort, undefined);
  assert.equal(loadConfig({ metricsPort: '9100', metricsHost: '0.0.0.0' }, {}).metricsHost, '0.0.0.0');
  assert.throws(
    () => loadConfig({}, { FOOTFALL_METRICS_PORT: 'x', FOOTFALL_METRICS_HOST: 'a b' }),
    (e: Error) => {
      assert.match(e.message, /FOOTFALL_METRICS_PORT \(--metrics-port\): "x" is not a port/);
      assert.match(e.message, /FOOTFALL_METRICS_HOST \(--metrics-host\): "a b" is not a host/);
      return true;
    },
  );
});
