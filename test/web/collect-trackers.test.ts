// Real trackers in headless Chromium (Debian's chromium, driven by playwright-core: no browser
// download): the official @plausible-analytics/tracker package pointed at footfall with `endpoint`,
// and footfall's own /js/script.js, each on a page served by the test from another origin. What they
// send is read back through /v1. Without Chromium the test says it is skipped and why; in CI (CI set)
// a missing Chromium fails it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { loadConfig } from '../../src/config/config.js';
import { generateSecret, hashSecret } from '../../src/domain/tokens.js';
import { startServer, type RunningServer } from '../../src/main.js';

const CHROMIUM = process.env.FOOTFALL_TEST_CHROMIUM || '/usr/bin/chromium';
const missing = fs.existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set FOOTFALL_TEST_CHROMIUM)`;
const skip = !process.env.CI && missing;

/** The flags this machine's closed network needs: no background calls home, no QUIC, no sandbox as root. */
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
/** A person's browser (the headless agent is a bot, and is counted as one: see the last test). */
const DESKTOP = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const TRACKER_JS = createRequire(import.meta.url).resolve('@plausible-analytics/tracker');

interface World {
  server: RunningServer;
  pages: { origin: string; close(): Promise<void> };
  browser: Browser;
  dir: string;
  profile: string;
  secret: string;
  site(hostname: string): Promise<string>;
  tenant(siteId: string): Promise<string>;
  get(p: string): Promise<any>;
  close(): Promise<void>;
}

/** Filled in the pages as they are served ({{NAME}}), for values known only once the server runs. */
const vars: Record<string, string> = {};

/** A static page server on another origin than footfall (cross-origin, as on a real site). */
async function pageServer(pages: Record<string, string>): Promise<{ origin: string; close(): Promise<void> }> {
  const srv = http.createServer((req, res) => {
    const url = (req.url ?? '/').split('?')[0];
    if (url === '/tracker/plausible.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(fs.readFileSync(TRACKER_JS));
      return;
    }
    const html = pages[url] ?? pages[url.replace(/\/spa\/.*$/, '/spa')];
    if (html === undefined) return void res.writeHead(404).end('not found');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html.replace(/\{\{(\w+)\}\}/g, (_, k: string) => vars[k] ?? ''));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((r) => srv.close(() => r())) };
}

async function world(pages: (api: string) => Record<string, string>): Promise<World> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-browser-'));
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-chromium-'));
  const server = await startServer(loadConfig({ dataDir: dir, port: 0, logLevel: 'silent', geoipDb: 'off' }, {}));
  const served = await pageServer(pages(server.address));
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  const c = server.container.catalog;
  const ws = await c.createWorkspace({ name: 'browser', plan: 'enterprise', apiPolicy: { allow_tenant_dimension: true } });
  const secret = generateSecret(randomBytes);
  await c.createToken({ workspaceId: ws.id, scopes: ['metrics:read'], secretHash: hashSecret(secret) });
  return {
    server,
    pages: served,
    browser,
    dir,
    profile,
    secret,
    site: async (hostname) =>
      (await c.createSite({ workspaceId: ws.id, name: hostname, hostnames: [hostname], collectionProfile: 'extended' })).id,
    tenant: async (siteId) => (await c.createTenant({ siteId, slug: 'acme', name: 'Acme' })).id,
    async get(p) {
      const r = await fetch(server.address + p, { headers: { authorization: `Bearer ${secret}` } });
      const body = await r.text();
      assert.equal(r.status, 200, body);
      return JSON.parse(body);
    },
    async close() {
      await browser.close().catch(() => undefined);
      await served.close();
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Counts the tracker's requests to footfall and waits until `n` of them were answered 202. */
function accepted(context: BrowserContext, api: string) {
  const statuses: number[] = [];
  const sent: string[] = [];
  context.on('request', (r) => {
    if (r.url() === `${api}/api/event`) sent.push(r.postData() ?? '');
  });
  context.on('response', (r) => {
    if (r.url() === `${api}/api/event`) statuses.push(r.status());
  });
  return {
    sent,
    async until(n: number): Promise<void> {
      const end = Date.now() + 20_000;
      while (statuses.filter((s) => s === 202).length < n && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
      assert.equal(statuses.filter((s) => s === 202).length, n, `answers ${statuses.join()} to ${sent.join('\n')}`);
    },
  };
}

const hideLinks = `<script>document.addEventListener('click', (e) => { if (e.target.closest('a')) e.preventDefault(); });</script>`;
const body = `<h1>Hello</h1>
<a id="out" href="https://github.com/acme/project">GitHub</a>
<a id="dl" href="/files/report.pdf?v=2">Report</a>
<form id="signup" action="/subscribe" onsubmit="event.preventDefault()"><input name="e" value="x"><button id="send">Send</button></form>
${hideLinks}`;

async function open(browser: Browser, ua?: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(ua ? { userAgent: ua } : {});
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  (page as Page & { errors?: string[] }).errors = errors;
  return { context, page };
}

test('the official Plausible tracker (npm, endpoint set to footfall) in Chromium: pageviews, engagement, actions, tenant', {
  skip,
  timeout: 120_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the tracker tests: ${missing}`);
  let tenantId = '';
  const w = await world((api) => ({
    '/official.html': `<!doctype html><title>Official</title>${body}
<script type="module">
  import { init, track } from '/tracker/plausible.js';
  // Under automation (navigator.webdriver) the tracker sends nothing unless told it is wanted.
  window.__plausible = true;
  init({ domain: 'official.example', endpoint: '${api}/api/event', captureOnLocalhost: true,
         outboundLinks: true, fileDownloads: true, formSubmissions: true,
         customProperties: () => ({ tenant_id: window.TENANT }) });
  window.trackSignup = () => track('Signup', { props: { action_id: 'hero' } });
</script>`,
  }));
  try {
    const siteId = await w.site('official.example');
    tenantId = await w.tenant(siteId);
    const { context, page } = await open(w.browser, DESKTOP);
    await context.addInitScript(`window.TENANT = ${JSON.stringify(tenantId)};`);
    const answers = accepted(context, w.server.address);
    await page.goto(`${w.pages.origin}/official.html?utm_source=newsletter`, { waitUntil: 'load' });
    await answers.until(1);
    await page.click('#out');
    await page.click('#dl');
    await page.click('#send');
    await page.evaluate(() => (window as unknown as { trackSignup(): void }).trackSignup());
    await answers.until(5);
    // A client-side navigation: the tracker reports the engaged time of the page it leaves, then a pageview.
    await page.waitForTimeout(1200);
    await page.evaluate(() => history.pushState({}, '', '/spa/next'));
    await answers.until(7);
    await context.close();
    assert.deepEqual((page as Page & { errors?: string[] }).errors, []);
    const kinds = answers.sent.map((b) => JSON.parse(b).n);
    assert.deepEqual(kinds, ['pageview', 'Outbound Link: Click', 'File Download', 'Form: Submission', 'Signup', 'engagement', 'pageview']);

    await w.server.collection!.flush();
    const q = `site_id=${siteId}`;
    const pages = (await w.get(`/v1/metrics/breakdown?${q}&dimension=page`)).current.rows;
    assert.deepEqual(pages, [
      { key: '/official.html', value: 1 },
      { key: '/spa/next', value: 1 },
    ]);
    assert.deepEqual((await w.get(`/v1/metrics/breakdown?${q}&dimension=source&metric=sessions`)).current.rows, [
      { key: 'newsletter', value: 1 },
    ]);
    assert.deepEqual(
      (await w.get(`/v1/metrics/breakdown?${q}&dimension=tenant`)).current.rows.map((r: { key: string; value: number }) => [
        r.key,
        r.value,
      ]),
      [[tenantId, 2]],
    );
    const actions = (await w.get(`/v1/reports/actions?${q}`)).current.actions
      .map((a: Record<string, unknown>) => `${a.family} ${a.action_name} ${a.action_target_host ?? ''}`.trim())
      .sort();
    assert.deepEqual(actions, ['custom Signup', 'downloads file.download', 'forms form.submit', 'outbound outbound.click github.com']);
    const totals = (await w.get(`/v1/reports/overview?${q}`)).current.overview.totals;
    assert.equal(totals.sessions, 1);
    assert.equal(totals.visitors, 1);
    assert.ok(totals.avg_session_eng_time_ms >= 1000, `engaged ${totals.avg_session_eng_time_ms} ms`);
    assert.equal((await w.get(`/v1/metrics/timeseries?${q}&traffic=humans`)).current.total, 2, 'a person, not a bot');
  } finally {
    await w.close();
  }
});

test("footfall's own /js/script.js in Chromium: pageviews on load and on history navigation, outbound, download, form, custom, engagement", {
  skip,
  timeout: 120_000,
}, async () => {
  if (missing) assert.fail(`CI needs Chromium for the tracker tests: ${missing}`);
  let tenantId = '';
  const w = await world((api) => ({
    '/first.html': `<!doctype html><title>First party</title>${body}
<script defer data-domain="first.example" data-tenant-id="{{TENANT}}" src="${api}/js/script.js"></script>`,
    '/headless.html': `<!doctype html><title>Headless</title><script defer data-domain="first.example" src="${api}/js/script.js"></script>`,
  }));
  try {
    const siteId = await w.site('first.example');
    tenantId = await w.tenant(siteId);
    vars.TENANT = tenantId;
    const { context, page } = await open(w.browser, DESKTOP);
    const answers = accepted(context, w.server.address);
    await page.goto(`${w.pages.origin}/first.html`, { waitUntil: 'load' });
    await answers.until(1);
    await page.click('#out');
    await page.click('#dl');
    await page.click('#send');
    await page.evaluate(() =>
      (window as unknown as { footfall(n: string, o: object): void }).footfall('Signup', { props: { action_id: 'hero' } }),
    );
    await answers.until(5);
    await page.waitForTimeout(1500);
    await page.evaluate(() => history.pushState({}, '', '/spa/one'));
    await answers.until(7);
    await page.goBack();
    await answers.until(8);
    await context.close();
    assert.deepEqual((page as Page & { errors?: string[] }).errors, []);
    const sent = answers.sent.map((b) => JSON.parse(b));
    assert.deepEqual(
      sent.map((e) => e.n),
      ['pageview', 'Outbound Link: Click', 'File Download', 'Form: Submission', 'Signup', 'engagement', 'pageview', 'pageview'],
    );
    assert.ok(
      sent.every((e) => e.d === 'first.example' && e.p?.tenant_id === tenantId),
      'every event carries the domain and the tenant',
    );

    // The same page in a default headless context: its agent says HeadlessChrome, a bot.
    const headless = await open(w.browser);
    const botAnswers = accepted(headless.context, w.server.address);
    await headless.page.goto(`${w.pages.origin}/headless.html`, { waitUntil: 'load' });
    await botAnswers.until(1);
    await headless.context.close();

    await w.server.collection!.flush();
    const q = `site_id=${siteId}`;
    assert.deepEqual((await w.get(`/v1/metrics/breakdown?${q}&dimension=page`)).current.rows, [
      { key: '/first.html', value: 2 },
      { key: '/spa/one', value: 1 },
    ]);
    assert.deepEqual((await w.get(`/v1/metrics/breakdown?${q}&dimension=page&traffic=bots_only`)).current.rows, [
      { key: '/headless.html', value: 1 },
    ]);
    assert.deepEqual(
      (await w.get(`/v1/metrics/breakdown?${q}&dimension=tenant`)).current.rows.map((r: { key: string; value: number }) => [
        r.key,
        r.value,
      ]),
      [[tenantId, 3]],
    );
    const actions = (await w.get(`/v1/reports/actions?${q}`)).current.actions
      .map((a: Record<string, unknown>) => [a.family, a.action_name, a.action_target_host ?? a.form_id ?? a.action_id ?? null].join(' '))
      .sort();
    assert.deepEqual(actions, [
      'custom Signup hero',
      'downloads file.download ',
      'forms form.submit signup',
      'outbound outbound.click github.com',
    ]);
    const forms = (await w.get(`/v1/reports/actions?${q}&action_family=forms`)).current.actions;
    assert.equal(forms[0].form_action_path, '/subscribe');
    const totals = (await w.get(`/v1/reports/overview?${q}`)).current.overview.totals;
    assert.deepEqual([totals.sessions, totals.visitors, totals.pageviews], [1, 1, 3]);
    assert.ok(totals.avg_session_eng_time_ms >= 1000, `engaged ${totals.avg_session_eng_time_ms} ms`);
  } finally {
    await w.close();
  }
});
