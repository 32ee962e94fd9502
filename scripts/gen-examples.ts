// `npm run docs` (first step): one real 200 body per operation, for the OpenAPI document's examples
// (src/http/openapi/examples.json). The demo is loaded into a scratch data dir at a fixed instant,
// every operation is asked once through the app, long lists are cut to a few items and the ids are
// replaced by stable ones, so the file changes only when the answers do.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.js';
import { runDemo } from '../src/cli/demo.js';
import { loadConfig } from '../src/config/config.js';
import { buildContainer } from '../src/container.js';
import { FakeClock } from '../src/domain/clock.js';
import { newId } from '../src/domain/tokens.js';
import { EXAMPLES_FILE } from '../src/http/openapi/finish-document.js';

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document, walked and rewritten as plain JSON of any shape
type Json = Record<string, any>;

/** The instant the examples are taken at (the demo's "today"). */
const NOW = Date.parse('2025-06-15T12:00:00.000Z');
/** When the demo's workspaces are made: usage history lists the months since, so it has a few to show. */
const CREATED = Date.parse('2025-04-01T00:00:00.000Z');
const MAX_ITEMS = 3;

/**
 * Arrays cut to a few items (an example shows the shape, not the data set). Catalog listings are
 * sorted by name first and their creation times set to the demo's instant, goal conversions by
 * conversions: the demo creates them within the same milliseconds under random ids, so their order
 * and times would change every run.
 */
function trim(v: unknown, key = ''): unknown {
  if (Array.isArray(v)) {
    const label = (x: { name?: unknown; tenant_slug?: unknown } | null | undefined) => String(x?.name ?? x?.tenant_slug ?? '');
    let list = v;
    if (key === 'items' && v.some((x) => label(x))) list = [...v].sort((a, b) => label(a).localeCompare(label(b)));
    // goal conversions come in goal-definition order, i.e. by random id: most conversions first instead
    if (key === 'goals')
      list = [...v].sort((a, b) => b.conversions - a.conversions || String(a.last_seen_at).localeCompare(String(b.last_seen_at)));
    return list.slice(0, MAX_ITEMS).map((x) => trim(x));
  }
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => [
        k,
        k === 'createdAt' || k === 'updatedAt' || k === 'updated_at' ? new Date(NOW).toISOString() : trim(x, k),
      ]),
    );
  return v;
}

/** Random-looking ids that are the same on every run: ids in order of first appearance. */
function stableIds(text: string): string {
  const seen = new Map<string, string>();
  let n = 0;
  return text.replace(
    /\b(ws|site|ten|goal|tok|funnel)_[A-Za-z0-9]{8,}\b/g,
    (id, prefix: 'ws' | 'site' | 'ten' | 'goal' | 'tok' | 'funnel') => {
      let out = seen.get(id);
      if (!out) {
        const seed = n++;
        let counter = 0;
        out = newId(prefix, (size) => {
          const bytes = Buffer.alloc(size);
          for (let i = 0; i < size; i += 32) createHash('sha256').update(`${prefix}:${seed}:${counter++}`).digest().copy(bytes, i);
          return bytes;
        });
        seen.set(id, out);
      }
      return out;
    },
  );
}

export async function captureExamples(): Promise<Json> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-examples-'));
  try {
    const config = loadConfig({ dataDir, logLevel: 'silent' }, {});
    const demo = await runDemo(config, { seed: 1, days: 35, nowMs: NOW, clock: new FakeClock(CREATED) });
    const container = await buildContainer(config, { clock: new FakeClock(NOW) });
    try {
      const app = await buildApp(container, { logger: false });
      const pro = demo.workspaces[0];
      const site = (key: string) => pro.sites.find((s) => s.hostname.startsWith(key))!.site_id;
      const acme = site('acme.example');
      const token = demo.tokens.find((t) => t.workspace_id === pro.workspace_id)!.secret;
      const range = 'from=2025-06-13&to=2025-06-15';
      // a saved funnel, for the list of them (the demo saves none)
      await container.catalog.createFunnel({
        siteId: acme,
        name: 'Pricing to signup',
        steps: [
          { kind: 'page', pattern: '/pricing' },
          { kind: 'event', name: 'signup' },
        ],
      });
      const urls: Record<string, string> = {
        getMe: '/v1/me',
        listSites: '/v1/sites',
        listTenants: `/v1/tenants?site_id=${site('app.acme.example')}`,
        listGoals: `/v1/goals?site_id=${acme}`,
        getCurrentUsage: '/v1/usage/current',
        getUsageHistory: '/v1/usage/history?from=2025-04-01',
        getTimeseries: `/v1/metrics/timeseries?site_id=${acme}&${range}&metric=visitors`,
        getBreakdown: `/v1/metrics/breakdown?site_id=${acme}&${range}&dimension=referrer&limit=3`,
        getOverviewReport: `/v1/reports/overview?site_id=${acme}&${range}&limit=3&compare=prev_period`,
        getAcquisitionReport: `/v1/reports/acquisition?site_id=${acme}&${range}&limit=3`,
        getActionsReport: `/v1/reports/actions?site_id=${acme}&${range}&limit=3`,
        getContentReport: `/v1/reports/content?site_id=${acme}&${range}&limit=3&include=full`,
        getGoalConversions: `/v1/goals/conversions?site_id=${acme}&${range}`,
        getHealth: '/healthz',
        listFunnels: `/api/v2/funnels?site_id=${acme}`,
      };
      // POST operations: their url and JSON body
      const bodies: Record<string, [string, Json]> = {
        query: [
          '/api/v2/query',
          {
            site_id: acme,
            date_range: ['2025-06-08', '2025-06-14'],
            metrics: ['visitors', 'visits', 'bounce_rate'],
            dimensions: ['visit:channel'],
            pagination: { limit: 3 },
            include: { total_rows: true },
          },
        ],
        funnel: [
          '/api/v2/funnel',
          { site_id: acme, date_range: ['2025-06-08', '2025-06-14'], steps: [{ page: '/' }, { page: '/pricing' }, { event: 'signup' }] },
        ],
      };
      const out: Json = {};
      for (const [operationId, target] of [...Object.entries(urls), ...Object.entries(bodies)]) {
        const [url, body] = typeof target === 'string' ? [target, undefined] : target;
        const res = await app.inject({
          method: body ? 'POST' : 'GET',
          url,
          headers: { authorization: `Bearer ${token}`, 'x-request-id': 'req_7d1e4b9a-53c2-4f0e-8a61-2b9c0f5e3d17' },
          ...(body ? { payload: body } : {}),
        });
        if (res.statusCode !== 200) throw new Error(`${operationId}: ${url} answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
        out[operationId] = trim(res.json());
      }
      await app.close();
      return JSON.parse(stableIds(JSON.stringify(out)));
    } finally {
      await container.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const text = JSON.stringify(await captureExamples(), null, 2) + '\n';
  fs.writeFileSync(EXAMPLES_FILE + '.tmp', text);
  fs.renameSync(EXAMPLES_FILE + '.tmp', EXAMPLES_FILE);
  process.stdout.write(`wrote ${path.relative(process.cwd(), EXAMPLES_FILE)} (${text.length} bytes)\n`);
}
