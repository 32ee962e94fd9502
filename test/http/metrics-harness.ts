// The HTTP harness plus events: sites on a workspace, a token, and imports through the real
// importer into the container's DuckDB store (so the data version bumps as in production).
import { Readable } from 'node:stream';
import type { LightMyRequestResponse } from 'fastify';
import type { ApiPolicy, PlanId, Profile } from '../../src/domain/plans.js';
import { importLines, reidentify, type ImportSummary } from '../../src/ingest/pipeline/import-lines.js';
import { readLineBatches } from '../../src/ingest/pipeline/read-lines.js';
import type { Workspace } from '../../src/ports/catalog-store.js';
import type { TokenScope } from '../../src/domain/access.js';
import { harness, type Harness } from './helpers/harness.js';
import { linesFor, MODES, type SiteMode } from '../unit/reports/reference.js';

export interface MetricsHarness extends Harness {
  ws: Workspace;
  /** a metrics:read token of ws */
  secret: string;
  site(opts?: { profile?: Profile; effectiveAt?: string | null; status?: 'ACTIVE' | 'SUSPENDED'; timezone?: string }): Promise<string>;
  tenant(siteId: string, slug: string, name?: string): Promise<string>;
  importEvents(lines: Record<string, unknown>[]): Promise<ImportSummary>;
  /** GET with ws's token; `query` values are URL-encoded */
  call(path: string, query: Record<string, string | number>, opts?: { token?: string }): Promise<LightMyRequestResponse>;
  newToken(opts?: { scopes?: TokenScope[]; siteIds?: string[] | null; tenantIds?: string[] | null; workspaceId?: string }): Promise<string>;
}

export async function metricsHarness(
  opts: { now?: string; plan?: PlanId; apiPolicy?: Partial<ApiPolicy>; config?: Record<string, string | number> } = {},
): Promise<MetricsHarness> {
  const h = await harness({ now: opts.now, config: opts.config });
  const ws = await h.workspace(opts.plan ?? 'pro', opts.apiPolicy);
  const { secret } = await h.token(ws.id);
  let n = 0;
  return Object.assign(h, {
    ws,
    secret,
    async site(o: { profile?: Profile; effectiveAt?: string | null; status?: 'ACTIVE' | 'SUSPENDED'; timezone?: string } = {}) {
      n++;
      const s = await h.catalog.createSite({
        workspaceId: ws.id,
        name: `site ${n}`,
        hostnames: [`m${n}-${ws.id.slice(-6).toLowerCase()}.example`],
        collectionProfile: o.profile ?? 'extended',
        profileEffectiveAt: o.effectiveAt ?? null,
        status: o.status,
        timezone: o.timezone,
      });
      return s.id;
    },
    async tenant(siteId: string, slug: string, name?: string) {
      return (await h.catalog.createTenant({ siteId, slug, name: name ?? slug.toUpperCase() })).id;
    },
    async importEvents(lines: Record<string, unknown>[]) {
      const store = h.container.events;
      const text = lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
      const summary = await importLines(readLineBatches(Readable.from([Buffer.from(text)])), {
        format: { kind: 'events' },
        catalog: h.catalog,
        sink: await store.beginImport({ reidentify }),
        nowMs: h.clock.now().getTime(),
      });
      if (summary.rejected) throw new Error(`test import rejected lines: ${JSON.stringify(summary.errors)}`);
      return summary;
    },
    call(path: string, query: Record<string, string | number>, o: { token?: string } = {}) {
      const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
      return h.get(`${path}${qs ? `?${qs}` : ''}`, { token: o.token ?? secret });
    },
    async newToken(o: { scopes?: TokenScope[]; siteIds?: string[] | null; tenantIds?: string[] | null; workspaceId?: string } = {}) {
      return (await h.token(o.workspaceId ?? ws.id, o)).secret;
    },
  });
}

/** A pageview import line. */
export function pv(site: string, ts: string, path: string, visitor: string, over: Record<string, unknown> = {}) {
  return { ts, type: 'pageview', site_id: site, path, visitor_key: visitor, ...over };
}

/**
 * One site per mode of the reference fixture (test/unit/reports/reference.ts), each holding the
 * fixture's events: by default strict, extended, and one that switched to extended inside the range.
 */
export async function referenceSites(h: MetricsHarness, modes: Record<string, SiteMode> = MODES): Promise<Record<string, string>> {
  const sites: Record<string, string> = {};
  for (const [name, mode] of Object.entries(modes))
    sites[name] = await h.site({
      profile: mode.profile,
      effectiveAt: mode.effectiveAtMs === null ? null : new Date(mode.effectiveAtMs).toISOString(),
    });
  for (const s of Object.values(sites)) await h.importEvents(linesFor(s));
  return sites;
}
