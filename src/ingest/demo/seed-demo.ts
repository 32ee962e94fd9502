// `footfall demo`: two workspaces (pro and starter), sites under both profiles (one switched
// from strict to extended three weeks ago), tenants, goals of both types, tokens, and months of
// traffic imported through the real pipeline as one import. Traffic is deterministic per seed;
// token secrets are random (they are credentials) and shown once.
import { randomBytes } from 'node:crypto';
import type { CatalogStore, GoalFilters, GoalIntent, GoalType } from '../../ports/catalog-store.js';
import type { PeopleStore } from '../../ports/people-store.js';
import type { TokenScope } from '../../domain/access.js';
import type { Profile, PlanId } from '../../domain/plans.js';
import { generateSecret, hashSecret } from '../../domain/tokens.js';
import { importLines, type ImportSink, type ImportSummary } from '../pipeline/import-lines.js';
import { Prng } from './prng.js';
import { siteTraffic, type TrafficSite } from './traffic.js';

const DAY_MS = 86_400_000;

interface SitePlan {
  key: string;
  name: string;
  host: string;
  profile: Profile;
  /** days before today the profile took effect (null: always) */
  switchedDaysAgo: number | null;
  visitorsPerDay: number;
  tenants: { slug: string; name: string; status?: 'ACTIVE' | 'INACTIVE' }[];
  goals: { name: string; type: GoalType; intent: GoalIntent; pattern: string; filters?: GoalFilters }[];
}

interface WorkspacePlan {
  name: string;
  plan: PlanId;
  sites: SitePlan[];
  tokens: { label: string; scopes: TokenScope[]; sites?: string[]; tenants?: [string, string][] }[];
}

const SIGNUP_GOALS: SitePlan['goals'] = [
  { name: 'Signed up', type: 'PAGEVIEW_MATCH', intent: 'signup', pattern: '/signup/thanks' },
  { name: 'Read the blog', type: 'PAGEVIEW_MATCH', intent: 'content', pattern: '/blog/*' },
  { name: 'Contact form', type: 'EVENT_MATCH', intent: 'lead', pattern: 'form.submit', filters: { form_id: 'contact' } },
  { name: 'Whitepaper', type: 'EVENT_MATCH', intent: 'download', pattern: 'file.download', filters: { action_id: 'whitepaper-pdf' } },
  { name: 'To GitHub', type: 'EVENT_MATCH', intent: 'outbound', pattern: 'outbound.click', filters: { action_target_host: 'github.com' } },
  { name: 'Signup event', type: 'EVENT_MATCH', intent: 'purchase', pattern: 'signup' },
];

export const DEMO_WORKSPACES: WorkspacePlan[] = [
  {
    name: 'Acme Analytics (pro)',
    plan: 'pro',
    sites: [
      {
        key: 'acme',
        name: 'Acme marketing site',
        host: 'acme.example',
        profile: 'extended',
        switchedDaysAgo: null,
        visitorsPerDay: 140,
        tenants: [],
        goals: SIGNUP_GOALS,
      },
      {
        key: 'shop',
        name: 'Acme shop (strict until 3 weeks ago)',
        host: 'shop.acme.example',
        profile: 'extended',
        switchedDaysAgo: 21,
        visitorsPerDay: 80,
        tenants: [],
        goals: SIGNUP_GOALS.slice(0, 4),
      },
      {
        key: 'app',
        name: 'Acme app (multi-tenant)',
        host: 'app.acme.example',
        profile: 'extended',
        switchedDaysAgo: null,
        visitorsPerDay: 60,
        tenants: [
          { slug: 'north', name: 'North Region' },
          { slug: 'south', name: 'South Region' },
          { slug: 'legacy', name: 'Legacy (inactive)', status: 'INACTIVE' },
        ],
        goals: SIGNUP_GOALS.slice(2, 5),
      },
      {
        key: 'docs',
        name: 'Acme docs (strict)',
        host: 'docs.acme.example',
        profile: 'strict',
        switchedDaysAgo: null,
        visitorsPerDay: 45,
        tenants: [],
        goals: SIGNUP_GOALS.slice(1, 2),
      },
    ],
    tokens: [
      { label: 'pro: all sites, metrics and usage', scopes: ['metrics:read', 'usage:read'] },
      { label: 'pro: marketing site only', scopes: ['metrics:read'], sites: ['acme'] },
      { label: 'pro: app, tenant "north" only', scopes: ['metrics:read'], sites: ['app'], tenants: [['app', 'north']] },
    ],
  },
  {
    name: 'Bistro Bella (starter)',
    plan: 'starter',
    sites: [
      {
        key: 'bistro',
        name: 'Bistro Bella',
        host: 'bistro.example',
        profile: 'strict',
        switchedDaysAgo: null,
        visitorsPerDay: 50,
        tenants: [],
        goals: [SIGNUP_GOALS[0], SIGNUP_GOALS[2]],
      },
    ],
    tokens: [{ label: 'starter: metrics and usage', scopes: ['metrics:read', 'usage:read'] }],
  },
];

export interface DemoToken {
  label: string;
  token_id: string;
  secret: string;
  workspace_id: string;
}

/** The person who owns every demo workspace; no password: they sign in by a one-time link. */
export const DEMO_OWNER_EMAIL = 'owner@demo.footfall.test';

export interface DemoOwner {
  user_id: string;
  email: string;
  /** a one-time sign-in link, when the command made one (shown only now) */
  sign_in_url?: string;
  expires_at?: string;
}

export interface DemoResult {
  /** set when the demo was seeded with a people store */
  owner?: DemoOwner;
  workspaces: {
    workspace_id: string;
    name: string;
    plan: PlanId;
    sites: { site_id: string; name: string; hostname: string; profile: Profile; profile_effective_at: string | null; tenants: string[] }[];
  }[];
  tokens: DemoToken[];
  import: ImportSummary;
  from: string;
  to: string;
}

/** The demo's catalog, as seeded: what `DemoTraffic` needs to generate and import its events. */
export interface DemoCatalog {
  result: Omit<DemoResult, 'import'>;
  traffic: DemoTraffic;
}

/** Everything that makes the demo's traffic: the same values give the same lines, so a load can resume. */
export interface DemoTraffic {
  sites: TrafficSite[];
  seed: number;
  startDayMs: number;
  days: number;
  nowMs: number;
}

/** The demo's workspaces, sites, tenants, goals and tokens (no traffic); token secrets only here. */
export async function seedDemoCatalog(opts: {
  catalog: CatalogStore;
  people?: PeopleStore;
  seed: number;
  days: number;
  nowMs: number;
}): Promise<DemoCatalog> {
  const { catalog, people } = opts;
  const todayMs = Math.floor(opts.nowMs / DAY_MS) * DAY_MS;
  const startDayMs = todayMs - (opts.days - 1) * DAY_MS;
  const result: DemoCatalog['result'] = {
    workspaces: [],
    tokens: [],
    from: new Date(startDayMs).toISOString().slice(0, 10),
    to: new Date(todayMs).toISOString().slice(0, 10),
  };
  const sites: TrafficSite[] = [];
  const owner = people ? await people.createUser({ email: DEMO_OWNER_EMAIL, name: 'Demo Owner' }) : null;
  if (owner) result.owner = { user_id: owner.id, email: owner.email };
  for (const wp of DEMO_WORKSPACES) {
    const ws = await catalog.createWorkspace({ name: wp.name, plan: wp.plan });
    if (owner) await people!.addMember({ workspaceId: ws.id, userId: owner.id, role: 'owner' });
    const siteIds = new Map<string, string>();
    const tenantIds = new Map<string, string>();
    const wsOut: DemoResult['workspaces'][number] = { workspace_id: ws.id, name: ws.name, plan: ws.plan, sites: [] };
    for (const sp of wp.sites) {
      const effectiveAt = sp.switchedDaysAgo === null ? null : new Date(todayMs - sp.switchedDaysAgo * DAY_MS).toISOString();
      const site = await catalog.createSite({
        workspaceId: ws.id,
        name: sp.name,
        hostnames: [sp.host, `www.${sp.host}`],
        collectionProfile: sp.profile,
        profileEffectiveAt: effectiveAt,
      });
      siteIds.set(sp.key, site.id);
      const active: string[] = [];
      for (const t of sp.tenants) {
        const tenant = await catalog.createTenant({ siteId: site.id, slug: t.slug, name: t.name, status: t.status ?? 'ACTIVE' });
        tenantIds.set(`${sp.key}/${t.slug}`, tenant.id);
        // An inactive tenant still has its older traffic, so it appears in the data too.
        active.push(tenant.id);
      }
      for (const g of sp.goals) {
        await catalog.createGoal({
          siteId: site.id,
          name: g.name,
          type: g.type,
          intent: g.intent,
          pattern: g.pattern,
          filters: g.filters ?? {},
        });
      }
      wsOut.sites.push({
        site_id: site.id,
        name: sp.name,
        hostname: sp.host,
        profile: sp.profile,
        profile_effective_at: effectiveAt,
        tenants: active,
      });
      sites.push({ id: site.id, host: sp.host, tenants: active, visitorsPerDay: sp.visitorsPerDay });
    }
    for (const tp of wp.tokens) {
      const secret = generateSecret(randomBytes);
      const token = await catalog.createToken({
        workspaceId: ws.id,
        scopes: tp.scopes,
        siteIds: tp.sites ? tp.sites.map((k) => siteIds.get(k)!) : null,
        tenantIds: tp.tenants ? tp.tenants.map(([s, t]) => tenantIds.get(`${s}/${t}`)!) : null,
        secretHash: hashSecret(secret),
      });
      result.tokens.push({ label: tp.label, token_id: token.id, secret, workspace_id: ws.id });
    }
    result.workspaces.push(wsOut);
  }
  return { result, traffic: { sites, seed: opts.seed, startDayMs, days: opts.days, nowMs: opts.nowMs } };
}

/**
 * Imports the demo's traffic through the real pipeline, as one import, or only the events of the
 * UTC days [fromDayMs, toDayMs] when `days` is given (a load in parts, newest first, each part an
 * import of its own).
 */
export function importDemoTraffic(opts: {
  catalog: CatalogStore;
  sink: ImportSink;
  traffic: DemoTraffic;
  days?: { fromDayMs: number; toDayMs: number };
  onProgress?: (p: { lines: number }) => void;
  /** lines per chunk handed on (smaller: the event loop of a serving process gets more turns) */
  chunkSize?: number;
  /** aborted: the import stops at the next chunk and stores nothing (it rejects with the signal's reason) */
  signal?: AbortSignal;
}): Promise<ImportSummary> {
  const t = opts.traffic;
  const from = Math.max(t.startDayMs, opts.days?.fromDayMs ?? t.startDayMs);
  const to = Math.min(t.startDayMs + (t.days - 1) * DAY_MS, opts.days?.toDayMs ?? Number.POSITIVE_INFINITY);
  return importLines(untilAborted(demoLines(t, from, to), opts.signal), {
    format: { kind: 'events' },
    catalog: opts.catalog,
    sink: opts.sink,
    nowMs: t.nowMs,
    onProgress: opts.onProgress,
    chunkSize: opts.chunkSize,
  });
}

/** Catalog and traffic in one go (`footfall demo`). */
export async function seedDemo(opts: {
  catalog: CatalogStore;
  people?: PeopleStore;
  sink: ImportSink;
  seed: number;
  days: number;
  nowMs: number;
  onProgress?: (p: { lines: number }) => void;
}): Promise<DemoResult> {
  const seeded = await seedDemoCatalog(opts);
  const summary = await importDemoTraffic({ catalog: opts.catalog, sink: opts.sink, traffic: seeded.traffic, onProgress: opts.onProgress });
  return { ...seeded.result, import: summary };
}

async function* untilAborted<T>(lines: AsyncGenerator<T>, signal: AbortSignal | undefined): AsyncGenerator<T> {
  for await (const chunk of lines) {
    signal?.throwIfAborted();
    yield chunk;
  }
}

async function* demoLines(t: DemoTraffic, fromDayMs: number, toDayMs: number): AsyncGenerator<string[]> {
  const endMs = Math.min(t.nowMs - 60_000, toDayMs + DAY_MS - 1);
  for (let i = 0; i < t.sites.length; i++) {
    const r = new Prng(t.seed * 1000 + i + 1); // one stream per site: adding a site leaves the others' data unchanged
    let batch: string[] = [];
    // the stream always starts at the first day, so a part of the days is the same lines as in the whole
    for (const visit of siteTraffic(r, t.sites[i], t.startDayMs, t.days, endMs)) {
      for (const l of visit) if (Date.parse(l.ts as string) >= fromDayMs) batch.push(JSON.stringify(l));
      if (batch.length >= 5000) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length) yield batch;
  }
}
