// Live collection's use-case (docs/product.md §9): a tracker's request -> the import line it is -> the import's
// own validation and enrichment (LineProcessor.processValidated: visitor key, agent, bots, geolocation,
// referrer, channel, utm, strict cuts, identity) -> a spool record, acknowledged once durable. The
// client address and user agent end with the enrichment: the spool holds the stored row only.
import type { Clock } from '../../domain/clock.js';
import { ControlPlaneUnavailableError } from '../../domain/errors.js';
import type { CatalogStore, Site } from '../../ports/catalog-store.js';
import type { CollectionProgress, CollectOutcome, CollectRequest, EventCollector } from '../../ports/event-collector.js';
import { encodeEventRow, type EngagementRow, type EventRow } from '../../ports/event-store.js';
import type { GeoLookup } from '../../ports/geo-lookup.js';
import { FIELD_LIMITS } from '../parse/raw-event.js';
import { validateEventLine } from '../parse/validate.js';
import { eventIdentity } from '../parse/identity.js';
import type { NormalizeSite } from '../parse/normalize.js';
import { VISITOR_SALT_SECRET } from '../pipeline/import-lines.js';
import { AgentMemo } from '../pipeline/agent-memo.js';
import { LineProcessor } from '../pipeline/line-processor.js';
import type { Loader } from './loader.js';
import type { SitesProgress } from './sites-progress.js';
import type { Spool } from './spool.js';
import { parseTrackerBody, toImportLine } from './tracker-payload.js';

/** How long catalog answers (a domain's site, a site's tenants, the salt) are reused. */
export const CATALOG_TTL_MS = 10_000;
/** Entries of each catalog memo before it is dropped (hostile requests name endless domains). */
const MEMO_LIMIT = 10_000;
/** Identical events (same visitor, page and millisecond) are told apart within this window. */
const REPEAT_WINDOW_MS = 10_000;

export interface CollectorDeps {
  catalog: Pick<CatalogStore, 'findSiteByHostname' | 'listTenants' | 'getOrCreateSecret'>;
  clock: Clock;
  spool: Spool;
  loader: Loader;
  /** asked once, when the first processor is made */
  geo: () => GeoLookup | null;
  progress: SitesProgress;
}

interface Memo<T> {
  value: T;
  at: number;
}

export class Collector implements EventCollector {
  private readonly sites = new Map<string, Memo<Site | null>>();
  private readonly tenants = new Map<string, Memo<Set<string>>>();
  private processor: Memo<Promise<LineProcessor>> | null = null;
  /** the visitor-key salt: made once and never changed (a failed read is asked again) */
  private secret: Promise<string> | null = null;
  /**
   * Agent parses and visitor keys, handed to each processor: they owe nothing to the catalog, so a
   * renewal need not make every active visitor pay its HMAC and agent parse again. Bounded by its
   * own limits; it serves only keys of the secret each processor names.
   */
  private readonly agentMemo = new AgentMemo();
  /** sites and tenants the current processor may be asked about (filled as requests resolve them) */
  private readonly known = { sites: new Map<string, NormalizeSite>(), tenants: new Map<string, string>() };
  /** occurrences of each event id in the current and the previous window (docs/product.md §8.2 identity) */
  private repeats = { current: new Map<string, number>(), previous: new Map<string, number>(), since: 0 };

  private geoLookup: GeoLookup | null | undefined;

  constructor(private readonly deps: CollectorDeps) {}

  private geo(): GeoLookup | null {
    if (this.geoLookup === undefined) this.geoLookup = this.deps.geo();
    return this.geoLookup;
  }

  async collect(req: CollectRequest): Promise<CollectOutcome> {
    const parsed = parseTrackerBody(req.body);
    if (!parsed.ok)
      return { kind: 'invalid', status: parsed.status, message: parsed.message, ...(parsed.field ? { field: parsed.field } : {}) };
    const ev = parsed.event;
    const tsMs = this.deps.clock.now().getTime();
    const ip = clientAddress(req.clientIp);
    // Past FIELD_LIMITS an agent says nothing more about the client; cut rather than refuse.
    const userAgent = (req.userAgent ?? '').slice(0, FIELD_LIMITS.user_agent);

    // Every check of the line comes before the site is looked up: a bad event of an unknown domain
    // is refused exactly as one of a known domain, so answers reveal no domain. The site (and the
    // tenant) are all the lookup adds to the validated line.
    const checked = validateEventLine(toImportLine(ev, { siteId: '-', tenantId: null, tsMs, ip, userAgent }), { nowMs: tsMs });
    if (!checked.ok) return { kind: 'invalid', status: 422, message: `Invalid event: ${checked.reason}.` };

    const site = await this.siteOf(ev.domain, tsMs);
    if (site === null || site.status !== 'ACTIVE') return this.ignored();
    const raw = checked.event;
    raw.site_id = site.id;
    raw.tenant_id = await this.activeTenant(site, ev.props.tenant_id, tsMs);
    const processor = await this.currentProcessor(tsMs);
    const out = await processor.processValidated(raw);
    if (out.kind === 'rejected') return { kind: 'invalid', status: 422, message: `Invalid event: ${out.reason}.` };
    if (out.kind === 'skipped') return this.ignored();

    let end: number;
    const engagement = ev.engagementMs !== null;
    if (ev.engagementMs !== null) {
      if (ev.engagementMs === 0 || out.row.path_canon === null) return this.ignored();
      const row: EngagementRow = {
        site_id: site.id,
        visitor_key: out.row.visitor_key,
        ts_ms: tsMs,
        path_canon: out.row.path_canon,
        engagement_ms: ev.engagementMs,
      };
      end = await this.deps.spool.append('G', JSON.stringify(row));
    } else {
      end = await this.deps.spool.append('E', this.uniquelyIdentified(out.row, out.encoded, tsMs));
    }
    this.deps.progress.accepted(site.id, tsMs, end, this.deps.loader.loadedUpTo);
    this.deps.loader.accepted();
    return { kind: 'accepted', engagement };
  }

  progress(siteId: string): CollectionProgress | null {
    return this.deps.progress.of(siteId, this.deps.loader.loadedUpTo);
  }

  /** Answered when the next spool write is durable, as an accepted event would be. */
  private async ignored(): Promise<CollectOutcome> {
    await this.deps.spool.barrier();
    return { kind: 'ignored' };
  }

  private async siteOf(domain: string, nowMs: number): Promise<Site | null> {
    const key = domain.toLowerCase();
    const hit = this.sites.get(key);
    if (hit && fresh(hit, nowMs)) return hit.value;
    let site: Site | null;
    try {
      site = await this.deps.catalog.findSiteByHostname(key);
    } catch (err) {
      // The control plane is away: a domain answered before keeps being collected as it was known then
      // (the spool keeps its events for the loader), asked again after another TTL; one never answered
      // cannot be told from a stranger's, and its request fails (503 while the control plane is down).
      if (hit === undefined || !(err instanceof ControlPlaneUnavailableError)) throw err;
      remember(this.sites, key, hit.value, nowMs);
      return hit.value;
    }
    remember(this.sites, key, site, nowMs);
    if (site) {
      const { id, hostnames, collectionProfile, profileEffectiveAt } = site;
      this.known.sites.set(id, { id, hostnames, collectionProfile, profileEffectiveAt });
    }
    return site;
  }

  /** props.tenant_id when it names an ACTIVE tenant of the site; any other value is ignored (docs/product.md §9). */
  private async activeTenant(site: Site, tenantId: string | undefined, nowMs: number): Promise<string | null> {
    if (tenantId === undefined) return null;
    let hit = this.tenants.get(site.id);
    if (!hit || !fresh(hit, nowMs)) {
      try {
        const active = new Set((await this.deps.catalog.listTenants(site.id)).filter((t) => t.status === 'ACTIVE').map((t) => t.id));
        hit = remember(this.tenants, site.id, active, nowMs);
      } catch (err) {
        // as for the site: the tenants known before, while the control plane is away
        if (hit === undefined || !(err instanceof ControlPlaneUnavailableError)) throw err;
        hit = remember(this.tenants, site.id, hit.value, nowMs);
      }
    }
    if (!hit.value.has(tenantId)) return null;
    this.known.tenants.set(tenantId, site.id);
    return tenantId;
  }

  /**
   * The import's LineProcessor, made anew every CATALOG_TTL_MS: it keeps what it learns of sites
   * for its lifetime, and a site's profile may change. What it learns of agents and visitors
   * (agentMemo) carries over, and so does the salt (made once by the catalog, never changed: asking
   * for it at each renewal cost an insert and a select).
   */
  private currentProcessor(nowMs: number): Promise<LineProcessor> {
    if (this.processor && fresh(this.processor, nowMs)) return this.processor.value;
    const known = this.known;
    if (this.secret === null) {
      const asked = this.deps.catalog.getOrCreateSecret(VISITOR_SALT_SECRET);
      this.secret = asked;
      asked.catch(() => {
        if (this.secret === asked) this.secret = null;
      });
    }
    const made = this.secret.then(
      (secret) =>
        new LineProcessor(
          { format: { kind: 'events' }, nowMs, secret },
          { site: (id) => known.sites.get(id) ?? null, tenantSite: (id) => known.tenants.get(id) ?? null },
          this.geo(),
          this.agentMemo,
        ),
    );
    this.processor = { value: made, at: nowMs };
    made.catch(() => {
      if (this.processor?.value === made) this.processor = null;
    });
    return made;
  }

  /**
   * The row's encoding (`encoded`, the processor's, when it is the first) with an id no other accepted
   * event has: identical events (same visitor, page and millisecond) get the ids of occurrence 2, 3,
   * ... (docs/product.md §8.2), so they are all kept, and a replayed spool record keeps its id.
   */
  private uniquelyIdentified(row: EventRow, encoded: string, nowMs: number): string {
    const r = this.repeats;
    if (nowMs - r.since >= REPEAT_WINDOW_MS || nowMs < r.since) {
      r.previous = r.current;
      r.current = new Map();
      r.since = nowMs;
    }
    const seen = (r.current.get(row.event_id) ?? 0) + (r.previous.get(row.event_id) ?? 0);
    r.current.set(row.event_id, (r.current.get(row.event_id) ?? 0) + 1);
    if (seen === 0) return encoded;
    return encodeEventRow({ ...row, event_id: eventIdentity(row, seen + 1) });
  }
}

function fresh<T>(m: Memo<T>, nowMs: number): boolean {
  return nowMs - m.at < CATALOG_TTL_MS && nowMs >= m.at;
}

function remember<T>(map: Map<string, Memo<T>>, key: string, value: T, nowMs: number): Memo<T> {
  if (map.size >= MEMO_LIMIT) map.clear();
  const m = { value, at: nowMs };
  map.set(key, m);
  return m;
}

/** IPv4 clients of a dual-stack socket arrive as ::ffff:a.b.c.d: one address, one visitor key. */
function clientAddress(ip: string): string {
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}
