// A real footfall (startServer) with a pro workspace (its owner, an admin and a viewer), an extended and a
// strict site filled with 96 days of imported events, two tenants, goals, an API token of the same
// workspace, a free workspace with its owner and a site, a DNS server of the test's own for domain proofs
// (FOOTFALL_DNS_SERVERS points at it), and one headless Chromium (Debian's, driven by playwright-core as
// the tracker tests do). People sign in through the management API; a page is opened with their session
// cookie, as the browser has it after signing in. The numbers the page draws are compared with /v1 read
// with the token (dashboard-compare.ts).
import type { Mailer } from '../../src/ports/mailer.js';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Frame, type Page } from 'playwright-core';
import { loadConfig } from '../../src/config/config.js';
import { openImportStores } from '../../src/container.js';
import type { Role } from '../../src/domain/roles.js';
import { generateSecret, hashSecret } from '../../src/domain/tokens.js';
import { Prng } from '../../src/ingest/demo/prng.js';
import { runImport } from '../../src/ingest/pipeline/run-import.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';
import { TEST_HASHER } from '../http/helpers/harness.js';
import { freePort } from '../stack/fixtures/serve.js';

export const CHROMIUM = process.env.FOOTFALL_TEST_CHROMIUM || '/usr/bin/chromium';
export const missing = fs.existsSync(CHROMIUM)
  ? false
  : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set FOOTFALL_TEST_CHROMIUM)`;
/** Skipped, saying why, where Chromium is missing; in CI (CI set) a missing Chromium fails. */
export const skip = !process.env.CI && missing;
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const SCREENSHOTS = path.resolve('test-results', 'screenshots');
const AXE = fs.readFileSync(path.resolve('node_modules', 'axe-core', 'axe.min.js'), 'utf8');
export const PASSWORD = 'a long enough password';

const DAY_MS = 86_400_000;
export const DAYS = 96;

export interface Opened {
  context: BrowserContext;
  page: Page;
  /** uncaught errors and Content-Security-Policy refusals seen by the page */
  problems: string[];
}

/** Who opens a page: a member of the pro workspace by role, the free workspace's owner, or nobody. */
export type Who = Role | 'free-owner' | null;

export interface OpenOptions {
  width?: number;
  scheme?: 'light' | 'dark';
  /** signed in as (default: the pro workspace's owner); null: signed out */
  as?: Who;
}

export interface DashboardWorld {
  server: RunningServer;
  browser: Browser;
  dns: TestDnsServer;
  /** the pro workspace's metrics:read token: /v1, what the page's numbers are compared with */
  secret: string;
  workspaces: { pro: string; free: string };
  /** extended and strict: 96 and 30 days of events; empty: none yet (its hostname is new.example); free: the free workspace's */
  sites: { extended: string; strict: string; empty: string; free: string };
  tenants: { acme: string; globex: string };
  emails: Record<Role | 'free-owner', string>;
  /** today's UTC day when asked, as the server and the page see it: a run that crosses midnight compares like with like */
  readonly today: string;
  /** the extended site's time zone (dashboardWorld's extendedZone; default UTC) */
  readonly zone: string;
  /** today's date in the extended site's zone: the end of its dashboard's default period */
  readonly localToday: string;
  /** GET a /v1 route with the token: status and parsed body */
  v1(route: string, query: Record<string, string | undefined>): Promise<{ status: number; body: any }>;
  /** POST /api/v2/query with the token (Accept `accept`, default JSON): status and parsed body (text for CSV) */
  v2(body: unknown, accept?: string): Promise<{ status: number; body: any }>;
  /** the signed-in dashboard of a site with the dashboard's query */
  siteUrl(siteId: string, query?: Record<string, string>): string;
  /** a path of the server, e.g. /app/settings/... */
  url(path: string): string;
  /** the session cookie of a person (signed in once through POST /app/api/session, then reused) */
  session(who: Exclude<Who, null>): Promise<{ cookie: string; csrf: string }>;
  open(url: string, options?: OpenOptions): Promise<Opened>;
  close(): Promise<void>;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const PAGES = ['/', '/pricing', '/blog/launch', '/docs', '/docs/install', '/about'];
type Weighted<T> = readonly (readonly [T, number])[];
const REFERRERS: Weighted<string | null> = [
  [null, 5],
  ['https://www.google.com/', 4],
  ['https://news.ycombinator.com/item?id=1', 2],
  ['https://twitter.com/x', 1],
  ['https://duckduckgo.com/', 1],
];
const PLACES: Weighted<readonly [string, string, string]> = [
  [['FR', 'IDF', 'Paris'], 4],
  [['DE', 'BY', 'München'], 3],
  [['US', 'CA', 'San Francisco'], 5],
  [['GB', 'ENG', 'London'], 2],
  [['JP', '13', 'Tokyo'], 1],
];
const DEVICES: Weighted<readonly [string, string, string]> = [
  [['desktop', 'Chrome', 'Windows'], 5],
  [['desktop', 'Firefox', 'Linux'], 2],
  [['mobile', 'Safari', 'iOS'], 4],
  [['mobile', 'Chrome', 'Android'], 3],
  [['tablet', 'Safari', 'iPadOS'], 1],
];

/** NDJSON of `days` days of visits to a site, ending now; the same lines for the same seed. */
function events(siteId: string, tenants: string[], days: number, seed: number, now: number): string {
  const r = new Prng(seed);
  const today0 = Math.floor(now / DAY_MS) * DAY_MS;
  const lines: string[] = [];
  for (let d = days - 1; d >= 0; d--) {
    const start = today0 - d * DAY_MS;
    // A visit starts at least 15 minutes before now and lasts at most about 8 (five views and their
    // actions): the fixture's last event is more than five minutes old whatever the time of day, so
    // nobody is a current visitor (a run just after midnight UTC once had today's visits start then).
    const end = Math.min(start + DAY_MS, now - 15 * 60_000);
    if (end <= start) continue;
    const visitors = 8 + r.int(0, 14) + (d % 7 === 2 ? 10 : 0);
    for (let v = 0; v < visitors; v++) {
      let ts = start + Math.floor(r.next() * (end - start));
      const [country, region, city] = r.weighted(PLACES);
      const [device_type, browser_family, os_family] = r.weighted(DEVICES);
      const referrer = r.weighted(REFERRERS);
      const tenant = r.weighted([
        [tenants[0], 4],
        [tenants[1], 3],
        [null, 3],
      ] as const);
      const common = {
        site_id: siteId,
        visitor_key: `v${d}-${v}`,
        country,
        region,
        city,
        device_type,
        browser_family,
        os_family,
        ...(tenant ? { tenant_id: tenant } : {}),
      };
      const views = r.weighted([
        [1, 5],
        [2, 3],
        [3, 2],
        [5, 1],
      ] as const);
      const utm = r.chance(0.2) ? '?utm_source=newsletter&utm_medium=email' : '';
      for (let i = 0; i < views; i++) {
        const page =
          i === 0
            ? r.weighted([
                ['/', 4],
                ['/blog/launch', 2],
                ['/pricing', 1],
                ['/docs', 1],
              ] as const)
            : r.pick(PAGES);
        lines.push(
          JSON.stringify({
            ts: new Date(ts).toISOString(),
            type: 'pageview',
            url: `https://site.example${page}${i === 0 ? utm : ''}`,
            ...(i === 0 && referrer ? { referrer } : {}),
            engagement_time_ms: r.int(0, 40_000),
            ...common,
            // custom properties on a visit's first page, from what it already is (no draw of the generator moves)
            ...(i === 0
              ? { props: { plan: device_type === 'desktop' ? 'pro' : 'free', ...(utm ? { campaign_kind: 'newsletter' } : {}) } }
              : {}),
          }),
        );
        ts += r.int(5_000, 90_000);
        if (r.chance(0.12))
          lines.push(
            JSON.stringify({
              ts: new Date(ts).toISOString(),
              type: 'action',
              action_name: 'outbound.click',
              action_target_host: 'github.com',
              path: page,
              ...common,
            }),
          );
        if (r.chance(0.06))
          lines.push(
            JSON.stringify({ ts: new Date(ts).toISOString(), type: 'action', action_name: 'file.download', path: page, ...common }),
          );
        if (r.chance(0.05))
          lines.push(JSON.stringify({ ts: new Date(ts).toISOString(), type: 'action', action_name: 'Signup', path: page, ...common }));
      }
    }
  }
  return lines.join('\n') + '\n';
}

async function addPerson(server: RunningServer, email: string, workspaceId: string, role: Role): Promise<void> {
  const people = server.container.people!;
  const user = await people.createUser({ email, name: email.split('@')[0], passwordHash: await TEST_HASHER.hash(PASSWORD) });
  await people.addMember({ workspaceId, userId: user.id, role });
}

/**
 * `mailer`: the server's outgoing mail (default: none, as without FOOTFALL_SMTP_URL). `extendedZone`: the
 * extended site's time zone (default UTC), whose days its dashboard counts.
 */
export async function dashboardWorld(opts: { mailer?: Mailer; extendedZone?: string } = {}): Promise<DashboardWorld> {
  const zone = opts.extendedZone ?? 'UTC';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-dashboard-'));
  const dns = await startDnsServer();
  // a port chosen beforehand: the public URL (invitation links, the script tag) must name the one it listens on
  const config = loadConfig({ dataDir: dir, port: await freePort(), logLevel: 'silent', geoipDb: 'off', dnsServers: dns.address }, {});
  // passwords are hashed at the lowest cost: the browser tests are not about hashing
  const server = await startServer(config, { overrides: { hasher: TEST_HASHER, ...(opts.mailer ? { mailer: opts.mailer } : {}) } });
  const opened: BrowserContext[] = [];
  let browser: Browser | undefined;
  try {
    const c = server.container.catalog;
    const ws = await c.createWorkspace({ name: 'Dashboard example', plan: 'pro' });
    const secret = generateSecret(randomBytes);
    await c.createToken({ workspaceId: ws.id, scopes: ['metrics:read'], secretHash: hashSecret(secret) });
    const extended = await c.createSite({
      workspaceId: ws.id,
      name: 'Extended example',
      hostnames: ['site.example'],
      collectionProfile: 'extended',
      timezone: zone,
    });
    const strict = await c.createSite({
      workspaceId: ws.id,
      name: 'Strict example',
      hostnames: ['strict.example'],
      collectionProfile: 'strict',
    });
    const empty = await c.createSite({ workspaceId: ws.id, name: 'New site', hostnames: ['new.example'], collectionProfile: 'extended' });
    const acme = await c.createTenant({ siteId: extended.id, slug: 'acme', name: 'Acme' });
    const globex = await c.createTenant({ siteId: extended.id, slug: 'globex', name: 'Globex' });
    await c.createGoal({
      siteId: extended.id,
      name: 'Saw pricing',
      type: 'PAGEVIEW_MATCH',
      intent: 'lead',
      pattern: '/pricing',
      filters: {},
    });
    await c.createGoal({
      siteId: strict.id,
      name: 'Saw pricing',
      type: 'PAGEVIEW_MATCH',
      intent: 'lead',
      pattern: '/pricing',
      filters: {},
    });
    const free = await c.createWorkspace({ name: 'Free example', plan: 'free' });
    const freeSite = await c.createSite({
      workspaceId: free.id,
      name: 'Free site',
      hostnames: ['free.example'],
      collectionProfile: 'strict',
    });
    const emails = {
      owner: 'owner@example.com',
      admin: 'admin@example.com',
      viewer: 'viewer@example.com',
      'free-owner': 'free-owner@example.com',
    };
    for (const role of ['owner', 'admin', 'viewer'] as const) await addPerson(server, emails[role], ws.id, role);
    await addPerson(server, emails['free-owner'], free.id, 'owner');
    const now = Date.now();
    const file = path.join(dir, 'events.ndjson');
    fs.writeFileSync(
      file,
      events(extended.id, [acme.id, globex.id], DAYS, 7, now) +
        events(strict.id, [], 30, 8, now).replace(/site\.example/g, 'strict.example') +
        events(freeSite.id, [], 20, 9, now).replace(/site\.example/g, 'free.example'),
    );
    const summary = await runImport({
      open: () => openImportStores(config),
      geoipDb: config.geoipDb,
      source: file,
      format: { kind: 'events' },
    });
    assert.equal(summary.rejected, 0, 'every fixture line imports');
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
    const b = browser;
    const sessions = new Map<string, Promise<{ cookie: string; csrf: string }>>();
    const session = (who: Exclude<Who, null>) => {
      let s = sessions.get(who);
      if (!s) {
        s = (async () => {
          const res = await fetch(`${server.address}/app/api/session`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ email: emails[who], password: PASSWORD }),
          });
          assert.equal(res.status, 200, `sign-in of ${who}: ${await res.clone().text()}`);
          const cookie = /footfall_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
          assert.ok(cookie, 'the sign-in sets the session cookie');
          return { cookie, csrf: ((await res.json()) as { csrf_token: string }).csrf_token };
        })();
        sessions.set(who, s);
      }
      return s;
    };
    return {
      server,
      browser: b,
      dns,
      secret,
      workspaces: { pro: ws.id, free: free.id },
      sites: { extended: extended.id, strict: strict.id, empty: empty.id, free: freeSite.id },
      tenants: { acme: acme.id, globex: globex.id },
      emails,
      get today() {
        return day(Date.now());
      },
      zone,
      get localToday() {
        return new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(Date.now());
      },
      async v2(body, accept = 'application/json') {
        const res = await fetch(`${server.address}/api/v2/query`, {
          method: 'POST',
          headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', accept },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: accept === 'text/csv' && res.status === 200 ? await res.text() : await res.json() };
      },
      async v1(route, query) {
        const q = new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined));
        const res = await fetch(`${server.address}${route}?${q}`, { headers: { authorization: `Bearer ${secret}` } });
        return { status: res.status, body: await res.json() };
      },
      siteUrl(siteId, query = {}) {
        const q = new URLSearchParams(query).toString();
        return `${server.address}/app/sites/${siteId}${q ? `?${q}` : ''}`;
      },
      url: (p) => `${server.address}${p}`,
      session,
      async open(url, options = {}) {
        const context = await b.newContext({
          viewport: { width: options.width ?? 1400, height: 900 },
          colorScheme: options.scheme ?? 'light',
          acceptDownloads: true,
        });
        opened.push(context);
        const who = options.as === undefined ? 'owner' : options.as;
        if (who) await context.addCookies([{ name: 'footfall_session', value: (await session(who)).cookie, url: server.address }]);
        const page = await context.newPage();
        const problems: string[] = [];
        page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
        page.on('console', (m) => {
          if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(`CSP: ${m.text()}`);
        });
        if (url !== 'about:blank') await page.goto(url, { waitUntil: 'load' });
        return { context, page, problems };
      },
      async close() {
        for (const ctx of opened) await ctx.close().catch(() => undefined);
        await b.close().catch(() => undefined);
        await server.close();
        await dns.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await browser?.close().catch(() => undefined);
    await server.close();
    await dns.close();
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** Waits until every read of the dashboard answered: the page (or frame) marks it (data-ready, web/src/dashboard/ready-mark.ts). */
export async function settled(page: Page | Frame): Promise<void> {
  await page.waitForSelector('.dashboard[data-ready]', { timeout: 20_000 });
}

/** axe-core on the page (or frame) as it is: the serious and critical violations, described. */
export async function axeViolations(page: Page | Frame): Promise<string[]> {
  // evaluated through the debugging protocol: the page's policy refuses inline scripts, as it should
  await page.evaluate(AXE);
  const result = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            ctx: Document,
            opts: object,
          ): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe;
    return axe.run(document, { resultTypes: ['violations'] });
  });
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} (${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(' '))
          .join('; ')})`,
    );
}
