// The same 1M events in DuckDB and in ClickHouse (two shards when the cluster variables are set, else
// one server), then the 90-day overview report and a 90-day page breakdown through the real app
// (HTTP inject, response cache off), in one run. Imports arrive in ten imports of 100k. Prints import time, first (cold) and median warm times.
// Run: eval "$(bash scripts/services.sh start)"; npx tsx bench/scale.ts [N=1000000]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { buildContainer, type Container } from '../src/container.js';
import { openSqliteControlPlane } from '../src/control/sqlite/open.js';
import { generateSecret, hashSecret } from '../src/domain/tokens.js';
import type { EventRow, EventStore } from '../src/ports/event-store.js';
import { makeRow } from '../test/contract/event-store.contract.js';
import { scratchUrl, skipReason } from '../test/engines/clickhouse-scratch.js';

const DAY = 86_400_000;
const N = Number(process.argv[2] ?? 1_000_000);
const CHUNK = 50_000;
const today = Math.floor(Date.now() / DAY) * DAY;
const START = today - 90 * DAY;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Deterministic synthetic traffic over the 90 days before today, generated chunk by chunk. */
function* chunks(siteId: string): Generator<EventRow[]> {
  let seed = 7;
  const rnd = (k: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % k;
  };
  const refs = [null, null, 'news.example.org', 'search.example.com', 'blog.example.net'];
  for (let at = 0; at < N; at += CHUNK) {
    const rows: EventRow[] = [];
    for (let i = at; i < Math.min(N, at + CHUNK); i++) {
      const action = rnd(5) === 0;
      const page = `/p${rnd(rnd(10) === 0 ? 2000 : 50)}`;
      rows.push(makeRow({
        event_id: `b${i}`,
        site_id: siteId,
        visitor_key: `v${rnd(60_000)}`,
        ts_ms: START + Math.floor((i / N) * 90 * DAY) + rnd(60_000),
        type: action ? 'action' : 'pageview',
        path_canon: page,
        page_title: `Title ${page}`,
        referrer_host: refs[rnd(refs.length)],
        country: ['DE', 'FR', 'US', 'GB', null][rnd(5)],
        device_type: (['desktop', 'mobile', 'tablet'] as const)[rnd(3)],
        channel: (['Direct', 'Search', 'Social', 'Referral'] as const)[rnd(4)],
        engagement_time_ms: rnd(30_000),
        action_name: action ? 'outbound.click' : null,
        family: action ? 'outbound' : null,
      }));
    }
    yield rows;
  }
}

interface Stack {
  name: string;
  container: Container;
  release(): Promise<void>;
}

async function openStack(name: string, eventsUrl?: string): Promise<Stack> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-bench-scale-'));
  const cp = await openSqliteControlPlane(':memory:');
  const container = await buildContainer(loadConfig({ dataDir, logLevel: 'silent', eventsUrl }, {}), { control: cp });
  return {
    name,
    container,
    release: async () => {
      await container.close();
      await cp.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function measure(stack: Stack) {
  const { container } = stack;
  const ws = await container.catalog.createWorkspace({ name: 'bench', plan: 'pro' });
  const site = await container.catalog.createSite({ workspaceId: ws.id, name: 'bench', hostnames: ['bench.example'], collectionProfile: 'extended', profileEffectiveAt: null });
  const secret = generateSecret(randomBytes);
  await container.catalog.createToken({ workspaceId: ws.id, scopes: ['metrics:read'], siteIds: null, tenantIds: null, secretHash: hashSecret(secret) });

  // one import per 100k events (about nine days each), the way daily or weekly imports arrive
  let t = performance.now();
  const store = container.events as unknown as EventStore;
  let imported = 0;
  let session = await store.beginImport();
  let inSession = 0;
  for (const rows of chunks(site.id)) {
    await session.append(rows);
    inSession += rows.length;
    if (inSession >= 100_000) {
      imported += (await session.commit()).imported;
      session = await store.beginImport();
      inSession = 0;
    }
  }
  imported += (await session.commit()).imported;
  const importS = (performance.now() - t) / 1000;
  const result = { imported };

  // every request runs its queries: the figures are the engine's, not the cache's
  container.analytics!.cache = null;
  const app = await buildApp(container, { logger: false });
  const from = day(START);
  const to = day(today - DAY);
  const requests: [string, string][] = [
    ['overview 90 days', `/v1/reports/overview?site_id=${site.id}&from=${from}&to=${to}`],
    ['page breakdown 90 days', `/v1/metrics/breakdown?site_id=${site.id}&dimension=page&metric=pageviews&from=${from}&to=${to}&limit=100`],
  ];
  const out: Record<string, { first: number; median: number; body: string }> = {};
  for (const [label, url] of requests) {
    const times: number[] = [];
    let body = '';
    for (let i = 0; i < 6; i++) {
      t = performance.now();
      const r = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${secret}` } });
      times.push(performance.now() - t);
      if (r.statusCode !== 200) throw new Error(`${stack.name} ${label}: ${r.statusCode} ${r.body.slice(0, 300)}`);
      body = JSON.stringify(r.json().current);
    }
    const warm = times.slice(1).sort((a, b) => a - b);
    out[label] = { first: times[0], median: warm[Math.floor(warm.length / 2)], body };
  }
  await app.close();
  return { imported: result.imported, importS, out };
}

// DuckDB's default 1GB spills a 1M-event import to temp files; give it room unless told otherwise
process.env.FOOTFALL_DUCKDB_MEMORY_LIMIT ??= '4GB';
const topology = skipReason('cluster') ? 'single' : 'cluster';
const chSkip = skipReason('single');
const stacks: [string, string | undefined][] = [['DuckDB', undefined]];
if (chSkip) console.log(`ClickHouse: skipped (${chSkip})`);
const scratch = chSkip ? null : scratchUrl(topology);
if (scratch) stacks.push([`ClickHouse (${topology === 'cluster' ? '2 shards' : '1 server'})`, scratch.url]);

console.log(`${N} events, 90 days, one site; ${os.cpus().length} cores; times in ms (first request, then median of 5)`);
const results: { name: string; body: Record<string, string> }[] = [];
for (const [name, url] of stacks) {
  const stack = await openStack(name, url);
  try {
    const r = await measure(stack);
    console.log(`${name}: import ${r.imported} events in ${r.importS.toFixed(1)} s (${Math.round(r.imported / r.importS)} ev/s)`);
    for (const [label, m] of Object.entries(r.out))
      console.log(`${name}:   ${label.padEnd(24)} first ${m.first.toFixed(0).padStart(6)}   median ${m.median.toFixed(0).padStart(6)}`);
    results.push({ name, body: Object.fromEntries(Object.entries(r.out).map(([k, v]) => [k, v.body])) });
  } finally {
    await stack.release();
    if (url && scratch) await scratch.drop();
  }
}
if (results.length === 2)
  for (const label of Object.keys(results[0].body))
    console.log(`same answer on both (${label}): ${results[0].body[label] === results[1].body[label] ? 'yes' : 'NO'}`);
