// The plan of an upgrade fixture (docs/decisions/upgrades.md), shared by the script that makes one with
// an earlier commit's own command line and server (scripts/make-upgrade-fixture.ts) and the test that
// opens it under the current code (test/upgrades/fixtures.test.ts): the frozen instant, the events, the
// fixed list of requests and how their answers are recorded and compared. Commit-agnostic: it speaks
// HTTP and the command line only.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

/** Every footfall process of a fixture runs with Date frozen here (frozen-clock.mjs). */
export const FIXTURE_NOW = '2026-11-20T15:00:00.000Z';
export const FROZEN_CLOCK = fileURLToPath(new URL('./frozen-clock.mjs', import.meta.url));
/** The origin the fixture's server is told it is reached at (links, the management API's Origin check). */
export const PUBLIC_URL = 'http://footfall.fixture.test';
export const OWNER = { email: 'owner@fixture.test', password: 'fixture-owner-password', name: 'Fixture Owner' };

/** What the fixture made, with the known secrets of its credentials: fixture.json. */
export interface FixtureFacts {
  /** the commit (or tag) that made it, and its package.json version */
  commit: string;
  version: string;
  now: string;
  publicUrl: string;
  workspaces: { pro: string; starter: string };
  sites: { shop: string; blog: string; tiny: string };
  tenants: { acme: string; globex: string };
  goals: string[];
  tokens: {
    /** pro workspace, every scope */
    pro: string;
    /** pro workspace, the shop site's acme tenant only */
    restricted: string;
    revoked: string;
    /** the secret a rotation replaced, and its new one */
    rotatedOld: string;
    rotatedNew: string;
    starter: string;
    /** the id of `pro` (an embed token names its parent) */
    proId: string;
  };
  /** the signed-in owner's session, when the commit had the management API */
  session: { cookie: string; csrf: string } | null;
  /** an embed token minted from the fixture's embed key (valid a day from `now`), when the commit had embed keys */
  embedToken: string | null;
  /** the path of a share link of the shop site (/share/<slug>), when the commit had share links */
  sharePath: string | null;
  imports: { kept: string | null; undone: string | null };
  /** steps the commit could not do (a command it lacked) */
  skipped: string[];
}

export interface PlannedRequest {
  name: string;
  path: string;
  /** whose credential: a bearer secret, the session cookie, or none */
  auth: { bearer: string } | { cookie: string } | null;
}

export interface RecordedAnswer {
  name: string;
  path: string;
  status: number;
  contentType: string | null;
  body: unknown;
}

const q = (params: Record<string, string>) => `?${new URLSearchParams(params).toString()}`;

/** The fixed list of requests, for what the fixture has. GET only: answering them may charge units, and that deterministically. */
export function plannedRequests(f: FixtureFacts): PlannedRequest[] {
  const pro = { bearer: f.tokens.pro };
  const shop = f.sites.shop;
  const blog = f.sites.blog;
  const week = { from: '2026-11-14', to: '2026-11-20' };
  const list: PlannedRequest[] = [
    { name: 'me', path: '/v1/me', auth: pro },
    { name: 'sites', path: '/v1/sites', auth: pro },
    { name: 'tenants', path: `/v1/tenants${q({ site_id: shop })}`, auth: pro },
    { name: 'goals', path: `/v1/goals${q({ site_id: shop })}`, auth: pro },
    { name: 'overview shop (default range)', path: `/v1/reports/overview${q({ site_id: shop })}`, auth: pro },
    {
      name: 'overview shop week compared',
      path: `/v1/reports/overview${q({ site_id: shop, ...week, compare: 'prev_period' })}`,
      auth: pro,
    },
    { name: 'overview shop tenant', path: `/v1/reports/overview${q({ site_id: shop, tenant_id: f.tenants.acme, ...week })}`, auth: pro },
    { name: 'overview blog (strict)', path: `/v1/reports/overview${q({ site_id: blog, ...week })}`, auth: pro },
    { name: 'acquisition shop', path: `/v1/reports/acquisition${q({ site_id: shop, ...week })}`, auth: pro },
    { name: 'acquisition blog (strict: locked)', path: `/v1/reports/acquisition${q({ site_id: blog, ...week })}`, auth: pro },
    { name: 'actions shop', path: `/v1/reports/actions${q({ site_id: shop, ...week })}`, auth: pro },
    { name: 'content shop', path: `/v1/reports/content${q({ site_id: shop, ...week })}`, auth: pro },
    { name: 'goal conversions shop', path: `/v1/goals/conversions${q({ site_id: shop, ...week })}`, auth: pro },
    { name: 'timeseries visitors', path: `/v1/metrics/timeseries${q({ site_id: shop, metric: 'visitors', ...week })}`, auth: pro },
    {
      name: 'timeseries hourly today, all traffic',
      path: `/v1/metrics/timeseries${q({ site_id: shop, interval: 'hour', traffic: 'all', from: '2026-11-20', to: '2026-11-20' })}`,
      auth: pro,
    },
    {
      name: 'timeseries engagement',
      path: `/v1/metrics/timeseries${q({ site_id: shop, metric: 'avg_session_eng_time_ms', ...week })}`,
      auth: pro,
    },
    { name: 'breakdown pages', path: `/v1/metrics/breakdown${q({ site_id: shop, dimension: 'page', ...week })}`, auth: pro },
    {
      name: 'breakdown sources filtered',
      path: `/v1/metrics/breakdown${q({ site_id: shop, dimension: 'source', metric: 'visitors', filters: JSON.stringify({ country: 'DE' }), ...week })}`,
      auth: pro,
    },
    { name: 'breakdown countries blog', path: `/v1/metrics/breakdown${q({ site_id: blog, dimension: 'country', ...week })}`, auth: pro },
    {
      name: 'breakdown tenants',
      path: `/v1/metrics/breakdown${q({ site_id: shop, dimension: 'tenant', metric: 'events', ...week })}`,
      auth: pro,
    },
    {
      name: 'timeseries tiny (starter, after the purge)',
      path: `/v1/metrics/timeseries${q({ site_id: f.sites.tiny, metric: 'events' })}`,
      auth: { bearer: f.tokens.starter },
    },
    {
      name: 'restricted token: its tenant',
      path: `/v1/reports/overview${q({ site_id: shop, tenant_id: f.tenants.acme, ...week })}`,
      auth: { bearer: f.tokens.restricted },
    },
    {
      name: 'restricted token: the whole site',
      path: `/v1/reports/overview${q({ site_id: shop, ...week })}`,
      auth: { bearer: f.tokens.restricted },
    },
    { name: 'revoked token', path: '/v1/me', auth: { bearer: f.tokens.revoked } },
    { name: 'rotated token: old secret', path: '/v1/me', auth: { bearer: f.tokens.rotatedOld } },
    { name: 'rotated token: new secret', path: '/v1/sites', auth: { bearer: f.tokens.rotatedNew } },
    { name: 'usage history', path: '/v1/usage/history', auth: pro },
    // last among the metered ones: it shows what the reads above charged
    { name: 'usage current', path: '/v1/usage/current', auth: pro },
  ];
  if (f.embedToken) {
    const embed = { bearer: f.embedToken };
    list.push({ name: 'embed token: overview', path: `/v1/reports/overview${q({ site_id: shop, ...week })}`, auth: embed });
    list.push({ name: 'embed token: sites (not an embed read)', path: '/v1/sites', auth: embed });
  }
  if (f.sharePath)
    list.push({ name: 'share link: overview', path: `${f.sharePath}/api/v1/reports/overview${q({ site_id: shop, ...week })}`, auth: null });
  if (f.session) {
    const s = { cookie: f.session.cookie };
    const ws = f.workspaces.pro;
    for (const [name, path] of [
      ['session', '/app/api/session'],
      ['workspaces', '/app/api/workspaces'],
      ['workspace', `/app/api/workspaces/${ws}`],
      ['workspace usage', `/app/api/workspaces/${ws}/usage`],
      ['members', `/app/api/workspaces/${ws}/members`],
      ['invitations', `/app/api/workspaces/${ws}/invitations`],
      ['sites (management)', `/app/api/workspaces/${ws}/sites`],
      ['tenants (management)', `/app/api/workspaces/${ws}/tenants`],
      ['goals (management)', `/app/api/workspaces/${ws}/goals`],
      ['tokens (management)', `/app/api/workspaces/${ws}/tokens`],
      ['embed keys', `/app/api/workspaces/${ws}/embed-keys`],
      ['shares', `/app/api/sites/${shop}/shares`],
      ['site dashboard facts', `/app/api/sites/${shop}`],
      ['dashboard read: overview', `/app/api/v1/reports/overview${q({ site_id: shop, ...week })}`],
    ] as const)
      list.push({ name: `management: ${name}`, path, auth: s });
  }
  // New requests go here, at the end, and nowhere else: an older fixture recorded the list before them,
  // and a request added in between would change the units the ones after it see charged.
  for (const [name, site] of [
    ['shop', shop],
    ['blog', blog],
  ])
    list.push({
      name: `events this month: ${name}`,
      path: `/v1/metrics/timeseries${q({ site_id: site, metric: 'events', traffic: 'all', from: '2026-11-01', to: '2026-11-20' })}`,
      auth: pro,
    });
  return list;
}

/** Makes one request and records its answer. */
export async function answer(base: string, r: PlannedRequest): Promise<RecordedAnswer> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (r.auth && 'bearer' in r.auth) headers.authorization = `Bearer ${r.auth.bearer}`;
  if (r.auth && 'cookie' in r.auth) headers.cookie = r.auth.cookie;
  const res = await fetch(`${base}${r.path}`, { headers });
  const contentType = res.headers.get('content-type');
  const text = await res.text();
  let body: unknown = text;
  if (contentType?.includes('json'))
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  return { name: r.name, path: r.path, status: res.status, contentType, body };
}

export async function answerAll(base: string, f: FixtureFacts): Promise<RecordedAnswer[]> {
  const out: RecordedAnswer[] = [];
  // one after another: the units each charges, the cache each fills and the usage read last depend on the order
  for (const r of plannedRequests(f)) out.push(await answer(base, r));
  return out;
}

/**
 * What differs between two runs of the same request on the same data by nature, not by the data: an
 * error's request id. Replaced by a placeholder in both before they are compared.
 */
export function withoutVolatile(a: RecordedAnswer): RecordedAnswer {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'request_id' || k === 'requestId' ? '<volatile>' : strip(x)]));
    return v;
  };
  return { ...a, body: strip(a.body) };
}

// ---- the events the fixture imports (deterministic: same seed, same lines) ----

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const UAS = [
  'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
];
const PLACES = [
  { country: 'DE', region: 'DE-BY', city: 'Munich' },
  { country: 'FR', region: 'FR-IDF', city: 'Paris' },
  { country: 'US', region: 'US-CA', city: 'San Francisco' },
  { country: 'GB', region: 'GB-ENG', city: 'London' },
];
const REFERRERS = [null, 'https://www.google.com/', 'https://news.ycombinator.com/item?id=1', 'https://duckduckgo.com/'];
const PAGES = ['/', '/pricing', '/docs/start', '/blog/hello', '/signup', '/signup/done'];

/**
 * NDJSON lines of visits over the six days before FIXTURE_NOW's, and today up to it: pageviews with
 * engagement, actions (form submissions, outbound clicks, downloads, a custom one), tenants on the shop,
 * bots among them. `site` picks the hostnames; `days` back from the frozen day.
 */
export function visitLines(opts: {
  siteId: string;
  host: string;
  tenants?: string[];
  visits: number;
  seed: number;
  daysBack: number;
}): string[] {
  const rnd = prng(opts.seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
  const nowMs = Date.parse(FIXTURE_NOW);
  const dayStart = nowMs - (nowMs % 86_400_000);
  const lines: string[] = [];
  for (let v = 0; v < opts.visits; v++) {
    const day = Math.floor(rnd() * (opts.daysBack + 1));
    // today's visits before the frozen instant, earlier days' anywhere in the day
    const span = day === 0 ? nowMs - dayStart - 3_600_000 : 86_400_000 - 3_600_000;
    let ts = dayStart - day * 86_400_000 + Math.floor(rnd() * span);
    const place = pick(PLACES);
    const ua = pick(UAS);
    const tenant = opts.tenants ? pick([...opts.tenants, null]) : null;
    const visitor = `fx-${opts.seed}-${v}`;
    const referrer = pick(REFERRERS);
    const campaign = rnd() < 0.3 ? '?utm_source=newsletter&utm_medium=email&utm_campaign=autumn' : '';
    const pages = 1 + Math.floor(rnd() * 4);
    for (let p = 0; p < pages; p++) {
      const page = pick(PAGES);
      const base = {
        ts: new Date(ts).toISOString(),
        site_id: opts.siteId,
        visitor_key: visitor,
        user_agent: ua,
        ...place,
        ...(tenant ? { tenant_id: tenant } : {}),
      };
      lines.push(
        JSON.stringify({
          ...base,
          type: 'pageview',
          url: `https://${opts.host}${page}${p === 0 ? campaign : ''}`,
          title: `Page ${page}`,
          ...(p === 0 && referrer ? { referrer } : {}),
          engagement_time_ms: Math.floor(rnd() * 90_000),
        }),
      );
      const r = rnd();
      if (r < 0.15)
        lines.push(JSON.stringify({ ...base, type: 'action', action_name: 'form.submit', form_id: 'signup', form_action_path: '/signup' }));
      else if (r < 0.25)
        lines.push(JSON.stringify({ ...base, type: 'action', action_name: 'outbound.click', action_target_host: 'partner.example' }));
      else if (r < 0.3) lines.push(JSON.stringify({ ...base, type: 'action', action_name: 'file.download', action_id: 'brochure.pdf' }));
      else if (r < 0.35) lines.push(JSON.stringify({ ...base, type: 'action', action_name: 'video_play', event_name: 'video_play' }));
      ts += 20_000 + Math.floor(rnd() * 120_000);
    }
  }
  return lines;
}

// ---- running a footfall process and waiting for it ----

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** `footfall serve` of some code (the argv that runs its command line) on `dataDir`, answering on a free port. */
export async function serveFixture(
  argv: string[],
  dataDir: string,
  env: NodeJS.ProcessEnv,
): Promise<{ base: string; proc: ChildProcess; stop(): Promise<void>; log(): string }> {
  const port = await freePort();
  const proc = spawn(
    process.execPath,
    [...argv, 'serve', '--data-dir', dataDir, '--port', String(port), '--log-level', 'warn', '--public-url', PUBLIC_URL],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  proc.stdout!.on('data', (d) => (log += d));
  proc.stderr!.on('data', (d) => (log += d));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const base = `http://127.0.0.1:${port}`;
  let gone = false;
  void exited.then(() => (gone = true));
  for (let i = 0; ; i++) {
    if (gone) throw new Error(`footfall serve exited before answering: ${log}`);
    if (i > 600) {
      proc.kill('SIGKILL');
      throw new Error(`footfall serve did not answer /healthz within a minute: ${log}`);
    }
    const ok = await fetch(`${base}/healthz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    proc,
    log: () => log,
    // SIGTERM: a graceful stop (what waits in the spool is loaded, the stores closed)
    stop: async () => {
      if (!gone) proc.kill('SIGTERM');
      await exited;
    },
  };
}
