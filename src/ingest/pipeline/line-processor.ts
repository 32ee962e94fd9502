// One line of an import to its stored row (docs/product.md §3, §8): parse, validate, site and tenant check,
// enrichment, identity. Pure apart from the catalog lookups it is handed, so the same code runs in
// the importing thread and in the parse workers (see import-parallel.ts).
import type { EventRow } from '../../ports/event-store.js';
import { validateEventLine } from '../parse/validate.js';
import { normalizeEvent, type NormalizeSite, type NormalizedEvent } from '../parse/normalize.js';
import { identifyFirst } from '../parse/identity.js';
import { accessLogToRawEvent, parseAccessLogLine, type AccessLogFormat } from '../parse/access-log.js';
import type { RawEvent } from '../parse/raw-event.js';
import { applyLocation } from '../parse/location.js';
import type { GeoLookup } from '../../ports/geo-lookup.js';
import { AgentMemo } from './agent-memo.js';

export type LineFormat = { kind: 'events' } | { kind: 'access-log'; format: AccessLogFormat; forwardedFor?: boolean };

/** What the processor needs of the catalog; answers are cached per import. */
export interface CatalogLookup {
  site(id: string): Promise<NormalizeSite | null> | NormalizeSite | null;
  /** the site id a tenant belongs to, null for an unknown tenant */
  tenantSite(id: string): Promise<string | null> | string | null;
}

export interface ProcessorConfig {
  format: LineFormat;
  defaultSiteId?: string;
  nowMs: number;
  /** the visitor-salt secret */
  secret: string;
  /**
   * entries each map of the processor's own AgentMemo holds before it is dropped (default 50,000);
   * tests make it small. A memo handed to the processor keeps the limit it was made with.
   */
  cacheLimit?: number;
}

export interface LineTally {
  rejected: number;
  skipped: number;
  /** `skipped` by reason: notPageviewReason's keys, and STRICT_PROFILE */
  skipped_by_reason: Record<string, number>;
  /** the first `maxErrors` rejections; `line` counts from 1 within the processed lines */
  errors: { line: number; reason: string }[];
}

/** A valid line that is not stored, and why (one instance per reason). */
class Skip {
  private static readonly all = new Map<string, Skip>();
  private constructor(readonly reason: string) {}
  static of(reason: string): Skip {
    let s = Skip.all.get(reason);
    if (!s) Skip.all.set(reason, (s = new Skip(reason)));
    return s;
  }
}

/** The skip reason of an action the strict profile does not store. */
export const STRICT_PROFILE = 'strict profile';

/** What became of one event: its row (event_id = occurrence 1) and wire encoding, or why it was not stored. */
export type ProcessedEvent =
  | { kind: 'stored'; row: EventRow; encoded: string }
  | { kind: 'rejected'; reason: string }
  | { kind: 'skipped'; reason: string };

/** A line's raw event, the reason it is rejected (a string), or why it is skipped. */
type Parsed = RawEvent | string | Skip;

/** An enriched line: its row and wire encoding, the reason it is rejected, or why it is skipped. */
type Outcome = { row: EventRow; encoded: string } | string | Skip;

export class LineProcessor {
  private readonly sites = new Map<string, NormalizeSite | null>();
  private readonly tenants = new Map<string, string | null>();
  private readonly toRaw: (text: string) => Parsed;
  private readonly memo: AgentMemo;

  constructor(
    private readonly cfg: ProcessorConfig,
    private readonly catalog: CatalogLookup,
    /** where client addresses are; null: no geolocation */
    private readonly geo: GeoLookup | null = null,
    /**
     * agent parses and visitor keys, which owe nothing to the catalog: a caller that renews its
     * processor to see site changes hands each one the same memo (it serves only keys of cfg.secret)
     */
    memo?: AgentMemo,
  ) {
    this.toRaw = rawParser(cfg);
    this.memo = memo ?? new AgentMemo(cfg.cacheLimit);
  }

  /**
   * Processes lines in order; `emit` gets each stored row (event_id = occurrence 1: the store
   * renumbers repeats across the whole import) and its wire encoding. Blank lines are ignored, not
   * rejected.
   */
  async process(lines: readonly string[], emit: (row: EventRow, encoded: string) => void, maxErrors: number): Promise<LineTally> {
    const tally: LineTally = { rejected: 0, skipped: 0, skipped_by_reason: {}, errors: [] };
    for (let i = 0; i < lines.length; i++) {
      const text = lines[i];
      // Most lines start with `{`; only the others pay for trim().
      if (text.charCodeAt(0) !== 123 && text.trim() === '') continue;
      const raw = this.toRaw(text);
      let out = typeof raw === 'string' || raw instanceof Skip ? raw : this.enrich(raw);
      if (out instanceof Promise) out = await out;
      if (typeof out === 'string') {
        tally.rejected++;
        if (tally.errors.length < maxErrors) tally.errors.push({ line: i + 1, reason: out });
      } else if (out instanceof Skip) {
        tally.skipped++;
        tally.skipped_by_reason[out.reason] = (tally.skipped_by_reason[out.reason] ?? 0) + 1;
      } else {
        emit(out.row, out.encoded);
      }
    }
    return tally;
  }

  /**
   * One event validateEventLine has already accepted (and whose site may since be set), through the
   * same enrichment as a line: live collection validates a tracker's payload as a line and enters here.
   */
  async processValidated(raw: RawEvent): Promise<ProcessedEvent> {
    let out = this.enrich(raw);
    if (out instanceof Promise) out = await out;
    if (typeof out === 'string') return { kind: 'rejected', reason: out };
    if (out instanceof Skip) return { kind: 'skipped', reason: out.reason };
    return { kind: 'stored', ...out };
  }

  /**
   * Site and tenant check, geolocation, user agent, normalization, identity: a row, a rejection
   * reason, or a skip. Synchronous once the catalog answers are cached (nearly every line), so a
   * large import does not pay a promise per line.
   */
  private enrich(raw: RawEvent): Outcome | Promise<Outcome> {
    const site = this.sites.get(raw.site_id);
    const owner = raw.tenant_id === null ? null : this.tenants.get(raw.tenant_id);
    if (site === undefined || owner === undefined) return this.lookUpThenEnrich(raw);
    return this.enrichFor(raw, site, owner);
  }

  private async lookUpThenEnrich(raw: RawEvent): Promise<Outcome> {
    let site = this.sites.get(raw.site_id);
    if (site === undefined) {
      site = await this.catalog.site(raw.site_id);
      this.sites.set(raw.site_id, site);
    }
    let owner: string | null = null;
    if (raw.tenant_id !== null) {
      let o = this.tenants.get(raw.tenant_id);
      if (o === undefined) {
        o = await this.catalog.tenantSite(raw.tenant_id);
        this.tenants.set(raw.tenant_id, o);
      }
      owner = o;
    }
    return this.enrichFor(raw, site, owner);
  }

  /** `owner`: the site the line's tenant belongs to (null without a tenant, or for an unknown one). */
  private enrichFor(raw: RawEvent, site: NormalizeSite | null, owner: string | null): Outcome {
    if (site === null) return `unknown site_id "${raw.site_id}"`;
    if (raw.tenant_id !== null && owner !== raw.site_id) return `tenant_id "${raw.tenant_id}" is not a tenant of site ${raw.site_id}`;
    let ev: NormalizedEvent | null;
    try {
      // Before deriveFromAgent, which drops the address.
      if (this.geo !== null && raw.ip !== null) applyLocation(raw, this.geo.lookup(raw.ip));
      this.deriveFromAgent(raw);
      ev = normalizeEvent(raw, site, this.cfg.secret);
    } catch (err) {
      return (err as Error).message;
    }
    if (ev === null) return Skip.of(STRICT_PROFILE);
    const { id, encoded } = identifyFirst(ev);
    (ev as EventRow).event_id = id;
    return { row: ev as EventRow, encoded };
  }

  /**
   * Does normalizeEvent's user-agent work ahead of it, memoized: parsing the agent is the
   * costliest step of an import and a log repeats a few thousand agents (and each visitor's
   * ip + agent within a day). Same functions and the same precedence (explicit fields win),
   * so the stored event is identical; normalizeEvent then finds nothing left to derive. The memo
   * (agent-memo.ts) may be shared with earlier processors of the same caller.
   */
  private deriveFromAgent(raw: RawEvent): void {
    const agent = raw.user_agent;
    if (agent === null) return;
    const entry = this.memo.agent(agent);
    if (raw.visitor_key === null) {
      if (raw.ip === null) return; // normalizeEvent reports the missing key
      raw.visitor_key = this.memo.visitorKey(entry, agent, this.cfg.secret, raw.site_id, raw.ts_ms, raw.ip);
    }
    const ua = entry.ua;
    raw.device_type ??= ua.device_type;
    raw.browser_family ??= ua.browser_family;
    raw.os_family ??= ua.os_family;
    raw.traffic_class ??= ua.traffic_class;
    raw.user_agent = null;
    raw.ip = null;
  }
}

function rawParser(cfg: ProcessorConfig): (text: string) => Parsed {
  const vopts = { defaultSiteId: cfg.defaultSiteId, nowMs: cfg.nowMs };
  const validate = (obj: unknown): Parsed => {
    const v = validateEventLine(obj, vopts);
    return v.ok ? v.event : v.reason;
  };
  if (cfg.format.kind === 'events') {
    return (text) => {
      let obj: unknown;
      try {
        obj = JSON.parse(text);
      } catch (err) {
        return `invalid JSON: ${(err as Error).message}`;
      }
      return validate(obj);
    };
  }
  const format = cfg.format.format;
  const logOpts = { forwardedFor: cfg.format.forwardedFor };
  const siteId = cfg.defaultSiteId;
  if (!siteId) throw new Error('an access-log import needs --site');
  return (text) => {
    const entry = parseAccessLogLine(text, format, logOpts);
    if ('error' in entry) return entry.error;
    const r = accessLogToRawEvent(entry, { id: siteId });
    return r.kind === 'skipped' ? Skip.of(r.reason) : validate(r.line);
  };
}
