// A data dir with a control plane and an open DuckDB store, for driving the real importer
// with hand-made lines and reading back what it stored.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { openControlPlane } from '../../src/control/open-control-plane.js';
import type { ControlPlane } from '../../src/control/sqlite/open.js';
import { openEventStore } from '../../src/engines/duckdb/open-event-store.js';
import type { DuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import { importLines, reidentify, type ImportSink, type ImportSummary, type LineFormat } from '../../src/ingest/pipeline/import-lines.js';
import { readLineBatches } from '../../src/ingest/pipeline/read-lines.js';
import type { Profile } from '../../src/domain/plans.js';
import type { GeoLookup } from '../../src/ports/geo-lookup.js';

export const NOW = Date.parse('2025-03-10T12:00:00.000Z');

export interface Harness {
  dir: string;
  control: ControlPlane;
  store: DuckDbEventStore;
  site(opts?: { hostnames?: string[]; profile?: Profile; effectiveAt?: string | null }): Promise<string>;
  tenant(siteId: string, slug: string): Promise<string>;
  /** imports the lines (objects are JSON-encoded) as one import */
  run(
    lines: (string | Record<string, unknown>)[],
    opts?: { site?: string; format?: LineFormat; sink?: (s: ImportSink) => ImportSink; geo?: GeoLookup | null },
  ): Promise<ImportSummary>;
  query(sql: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

export async function harness(): Promise<Harness> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-ingest-'));
  const control = await openControlPlane({ dataDir: dir });
  const store = await openEventStore({ dataDir: dir });
  const ws = await control.catalog.createWorkspace({ name: 'test', plan: 'pro' });
  let n = 0;
  return {
    dir,
    control,
    store,
    async site(opts = {}) {
      n++;
      const s = await control.catalog.createSite({
        workspaceId: ws.id,
        name: `site ${n}`,
        hostnames: opts.hostnames ?? [`site${n}.example`],
        collectionProfile: opts.profile ?? 'extended',
        profileEffectiveAt: opts.effectiveAt ?? null,
      });
      return s.id;
    },
    async tenant(siteId, slug) {
      return (await control.catalog.createTenant({ siteId, slug, name: slug })).id;
    },
    async run(lines, opts = {}) {
      const text = lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';
      const session = await store.beginImport({ reidentify });
      const sink = opts.sink ? opts.sink(session) : session;
      return importLines(readLineBatches(Readable.from([Buffer.from(text)])), {
        format: opts.format ?? { kind: 'events' },
        catalog: control.catalog,
        sink,
        defaultSiteId: opts.site,
        nowMs: NOW,
        chunkSize: 2, // several chunks even for small inputs: the chunked path is the one under test
        geo: opts.geo,
      });
    },
    async query(sql) {
      const c = await store.instance.connect();
      try {
        return (await c.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
      } finally {
        c.closeSync();
      }
    },
    async close() {
      await store.close();
      await control.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A pageview line; ts as ISO. */
export function pv(site: string, ts: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return { ts, type: 'pageview', site_id: site, path: '/', visitor_key: 'v1', ...over };
}

export function action(site: string, ts: string, action_name: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return { ts, type: 'action', site_id: site, action_name, visitor_key: 'v1', ...over };
}

/** sessions of a site as plain rows, by start */
export async function sessionsOf(h: Harness, site: string): Promise<Record<string, unknown>[]> {
  return h.query(`SELECT * EXCLUDE (site_id) FROM sessions WHERE site_id = '${site}' ORDER BY start_ms, visitor_key, tenant_id`);
}
