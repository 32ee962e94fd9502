// A real footfall (startServer) with a pro site of two tenants (acme visits /acme-* pages, globex
// /globex-* pages, over the last 20 days), a parent API token, an embed key framable by one host
// origin, and two host pages on other loopback origins: the listed one and one that is not. Each host
// page is what a SaaS serves: its backend mints the embed token (jsonwebtoken, as a SaaS would), its page
// frames /embed, sizes the iframe from the height messages and hands a fresh token on request.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import jwt from 'jsonwebtoken';
import { chromium, type Browser, type BrowserContext, type Frame, type Page } from 'playwright-core';
import { loadConfig } from '../../src/config/config.js';
import { openImportStores } from '../../src/container.js';
import { generateSecret, hashSecret } from '../../src/domain/tokens.js';
import { runImport } from '../../src/ingest/pipeline/run-import.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { embedKeySecret } from '../../src/services/embeds/embed-keys.js';
import { createShareLink } from '../../src/services/embeds/share-links.js';
import { OPERATOR, siteAccess } from '../../src/services/manage/access.js';
import { CHROMIUM } from './dashboard-world.js';

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
const DAY_MS = 86_400_000;
export const SHARE_PASSWORD = 'the share password';
/** an admin of the workspace, to sign in to the settings */
export const ADMIN = { email: 'admin@embed.example', password: 'an admin password' };

export interface HostServer {
  origin: string;
  close(): Promise<void>;
}

export interface EmbedWorld {
  server: RunningServer;
  browser: Browser;
  workspaceId: string;
  site: string;
  tenants: { acme: string; globex: string };
  /** today's UTC day when asked, as the server and the page see it: a run that crosses midnight compares like with like */
  readonly today: string;
  /** the listed host origin and one that is not */
  host: HostServer;
  stranger: HostServer;
  /** a share link of the site with a password: its path */
  sharePath: string;
  /** GET a /v1 route with the parent token */
  v1(route: string, query: Record<string, string | undefined>): Promise<{ status: number; body: any }>;
  /** POST /api/v2/query (or `route`, e.g. /api/v2/funnel) with the parent token */
  v2(body: unknown, route?: string): Promise<{ status: number; body: any }>;
  /** an embed token of a tenant, minted as the SaaS backend does; `stale`: one that expired a minute ago */
  mint(tenant: string, opts?: { stale?: boolean }): string;
  /** the embed page's own URL for a token (the key in the query, the token in the fragment) */
  embedUrl(token: string, query?: Record<string, string>): string;
  newPage(options?: { width?: number; scheme?: 'light' | 'dark' }): Promise<{ context: BrowserContext; page: Page; console: string[] }>;
  close(): Promise<void>;
}

function lines(site: string, tenants: [string, string], now: number): string {
  const out: string[] = [];
  const today0 = Math.floor(now / DAY_MS) * DAY_MS;
  for (let d = 19; d >= 0; d--) {
    const start = today0 - d * DAY_MS;
    const span = Math.max(60_000, Math.min(DAY_MS, now - 120_000 - start));
    for (const [tenant, name, visitors] of [
      [tenants[0], 'acme', 3 + (d % 4)],
      [tenants[1], 'globex', 5 + (d % 3)],
    ] as const) {
      for (let v = 0; v < visitors; v++) {
        const ts = start + Math.floor(((v + 1) / (visitors + 1)) * span);
        const common = {
          site_id: site,
          visitor_key: `${name}-${d}-${v}`,
          tenant_id: tenant,
          country: v % 2 ? 'FR' : 'DE',
          device_type: 'desktop',
          browser_family: 'Firefox',
          os_family: 'Linux',
        };
        out.push(
          JSON.stringify({ ts: new Date(ts).toISOString(), type: 'pageview', url: `https://embed.example/${name}-home`, ...common }),
        );
        if (v % 2 === 0)
          out.push(
            JSON.stringify({
              ts: new Date(ts + 30_000).toISOString(),
              type: 'pageview',
              url: `https://embed.example/${name}-pricing`,
              ...common,
            }),
          );
        // an outbound click with a long host: the Actions panel's rows, which must read whole at 335 px
        if (v % 3 === 0)
          out.push(
            JSON.stringify({
              ts: new Date(ts + 45_000).toISOString(),
              type: 'action',
              action_name: 'outbound.click',
              action_target_host: `docs.${name}-integration-partner.example`,
              url: `https://embed.example/${name}-home`,
              ...common,
            }),
          );
      }
    }
  }
  return out.join('\n') + '\n';
}

/** The SaaS: its page frames the embed for ?tenant=, sizes it, and hands it a fresh token when asked. */
function hostServer(
  footfall: string,
  mint: (tenant: string, stale: boolean) => string,
  tenants: Record<string, string>,
): Promise<HostServer> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://host');
    const tenant = tenants[url.searchParams.get('tenant') ?? 'acme'];
    if (url.pathname === '/fresh') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token: mint(tenant, false) }));
      return;
    }
    const token = mint(tenant, url.searchParams.get('stale') === '1');
    const src = `${footfall}/embed?${new URLSearchParams({ key: keyIdOf(token), ...(url.searchParams.get('theme') ? { theme: url.searchParams.get('theme')! } : {}) })}#token=${token}`;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Your analytics · SaaS</title>
<style>body{font-family:sans-serif;margin:0;padding:1rem;background:#f4f4f8}iframe{width:100%;border:0;display:block;height:200px}</style></head>
<body><h1>Your analytics</h1>
<iframe id="analytics" title="Analytics" src="${src}"></iframe>
<script>
  const FOOTFALL = ${JSON.stringify(footfall)};
  const frame = document.getElementById('analytics');
  window.heights = [];
  window.expired = 0;
  addEventListener('message', (e) => {
    if (e.origin !== FOOTFALL || e.source !== frame.contentWindow) return;
    if (e.data.type === 'footfall:height') { frame.style.height = e.data.height + 'px'; window.heights.push(e.data.height); }
    if (e.data.type === 'footfall:token-expired') window.expired++;
  });
  // what a SaaS does on footfall:token-expired: fetch a fresh token from its backend and hand it over
  window.refresh = async () => {
    const { token } = await (await fetch('/fresh?tenant=${url.searchParams.get('tenant') ?? 'acme'}')).json();
    frame.contentWindow.postMessage({ type: 'footfall:token', token }, FOOTFALL);
  };
</script></body></html>`);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ origin: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) });
    }),
  );
}

const keyIdOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()).kid as string;

/** A port free now: the server's own origin (its public URL, which a share password's Origin must equal) is known before it starts. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = http.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

export async function embedWorld(): Promise<EmbedWorld> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-embed-'));
  const config = loadConfig({ dataDir: dir, port: await freePort(), logLevel: 'silent', geoipDb: 'off' }, {});
  const server = await startServer(config);
  const closers: (() => Promise<unknown>)[] = [() => server.close()];
  try {
    const { catalog, embeds, people, clock } = server.container;
    const ws = await catalog.createWorkspace({ name: 'embeds', plan: 'pro' });
    const secret = generateSecret(randomBytes);
    const parent = await catalog.createToken({ workspaceId: ws.id, scopes: ['metrics:read'], secretHash: hashSecret(secret) });
    const site = await catalog.createSite({
      workspaceId: ws.id,
      name: 'Embedded example',
      hostnames: ['embed.example'],
      collectionProfile: 'extended',
    });
    const acme = await catalog.createTenant({ siteId: site.id, slug: 'acme', name: 'Acme' });
    const globex = await catalog.createTenant({ siteId: site.id, slug: 'globex', name: 'Globex' });
    // a saved funnel, which the embed and share pages offer (GET /api/v2/funnels)
    await catalog.createFunnel({
      siteId: site.id,
      name: 'Home to pricing',
      steps: [
        { kind: 'page', pattern: '/*-home' },
        { kind: 'page', pattern: '/*-pricing' },
      ],
    });
    const now = Date.now();
    const file = path.join(dir, 'events.ndjson');
    fs.writeFileSync(file, lines(site.id, [acme.id, globex.id], now));
    const summary = await runImport({
      open: () => openImportStores(config),
      geoipDb: config.geoipDb,
      source: file,
      format: { kind: 'events' },
    });
    assert.equal(summary.rejected, 0, 'every fixture line imports');

    // The host's origin is known once it listens: the key is made for it then.
    let keyId = '';
    let keySecret = '';
    const mint = (tenant: string, stale = false) => {
      const t = Math.floor(Date.now() / 1000) - (stale ? 7200 : 0);
      return jwt.sign({ token_id: parent.id, site_id: site.id, tenant_id: tenant, iat: t, exp: t + (stale ? 7140 : 3600) }, keySecret, {
        algorithm: 'HS256',
        keyid: keyId,
      });
    };
    const tenants = { acme: acme.id, globex: globex.id };
    const host = await hostServer(server.address, mint, tenants);
    closers.push(() => host.close());
    const stranger = await hostServer(server.address, mint, tenants);
    closers.push(() => stranger.close());
    const key = await embeds!.createEmbedKey({ workspaceId: ws.id, origins: [host.origin] });
    keyId = key.id;
    keySecret = await embedKeySecret(catalog, key.id);

    const deps = { catalog, people: people!, embeds: embeds!, clock, hasher: server.container.hasher!, publicUrl: server.address };
    const share = await createShareLink(deps, await siteAccess(deps, OPERATOR, site.id, 'admin'), {
      tenantId: acme.id,
      password: SHARE_PASSWORD,
    });
    const admin = await people!.createUser({ email: ADMIN.email, name: 'Admin', passwordHash: await deps.hasher.hash(ADMIN.password) });
    await people!.addMember({ workspaceId: ws.id, userId: admin.id, role: 'admin' });

    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
    closers.push(() => browser.close());
    return {
      server,
      browser,
      workspaceId: ws.id,
      site: site.id,
      tenants,
      get today() {
        return new Date().toISOString().slice(0, 10);
      },
      host,
      stranger,
      sharePath: new URL(share.url).pathname,
      async v1(route, query) {
        const q = new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined));
        const res = await fetch(`${server.address}${route}?${q}`, { headers: { authorization: `Bearer ${secret}` } });
        return { status: res.status, body: await res.json() };
      },
      async v2(body, route = '/api/v2/query') {
        const res = await fetch(`${server.address}${route}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: await res.json() };
      },
      mint: (tenant, opts = {}) => mint(tenant, opts.stale),
      embedUrl: (token, query = {}) => `${server.address}/embed?${new URLSearchParams({ key: keyId, ...query })}#token=${token}`,
      async newPage(options = {}) {
        const context = await browser.newContext({
          viewport: { width: options.width ?? 1280, height: 900 },
          colorScheme: options.scheme ?? 'light',
        });
        const page = await context.newPage();
        const console: string[] = [];
        page.on('console', (m) => console.push(`${m.type()}: ${m.text()}`));
        page.on('pageerror', (e) => console.push(`pageerror: ${e.message}`));
        return { context, page, console };
      },
      async close() {
        for (const c of closers.reverse()) await c().catch(() => undefined);
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    for (const c of closers.reverse()) await c().catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** The six tiles' numbers as drawn: metric -> value. */
export async function tileValues(where: Page | Frame): Promise<Record<string, number>> {
  const pairs = await where.$$eval('.tile', (tiles) =>
    tiles.map((t) => [t.getAttribute('data-metric')!, Number(t.getAttribute('data-value'))] as const),
  );
  return Object.fromEntries(pairs);
}
