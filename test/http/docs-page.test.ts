// GET /docs in headless Chromium (Debian's chromium, driven by playwright-core): the page renders
// every operation of the served document, shows the error catalog, retry guidance and metering
// table, and asks nothing of any host but the server's own 127.0.0.1 address.
// Without Chromium the test says it is skipped and why; in CI (CI set) a missing Chromium fails it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { loadConfig } from '../../src/config/config.js';
import { startServer } from '../../src/main.js';

const CHROMIUM = process.env.FOOTFALL_TEST_CHROMIUM || '/usr/bin/chromium';
const missing = fs.existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set FOOTFALL_TEST_CHROMIUM)`;

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

test('the docs page renders every operation and the reference text, offline', { skip: !process.env.CI && missing }, async () => {
  if (missing) assert.fail(`CI needs Chromium for the docs page test: ${missing}`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-docs-'));
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-chromium-'));
  const server = await startServer(loadConfig({ dataDir, port: 0, logLevel: 'silent' }, {}));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS });
  try {
    const requested: string[] = [];
    context.on('request', (r) => requested.push(r.url()));
    const page = context.pages()[0] ?? (await context.newPage());
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));

    const res = await page.goto(`${server.address}/docs`, { waitUntil: 'load' });
    assert.equal(res?.status(), 200);
    assert.match(res?.headers()['content-security-policy'] ?? '', /connect-src 'self'/);
    const doc = (await (await fetch(`${server.address}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string; tags: string[] }>>;
    };
    const ops = Object.values(doc.paths).flatMap((item) => Object.values(item));
    // Swagger UI gives each operation block the id operations-<tag>-<operationId>.
    await page.waitForSelector('.opblock', { timeout: 30_000 });
    await page.waitForFunction((n) => document.querySelectorAll('.opblock').length >= n, ops.length, { timeout: 30_000 });
    const shown = await page.$$eval('.opblock', (els) => els.map((e) => e.id));
    for (const op of ops)
      assert.ok(
        shown.includes(`operations-${op.tags[0].replace(/\s/g, '_')}-${op.operationId}`),
        `${op.operationId} is listed (${shown.join(', ')})`,
      );
    assert.equal(shown.length, ops.length, 'nothing else is listed');

    // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered, what a reader sees
    const info = await page.$eval('.information-container', (e) => (e as HTMLElement).innerText);
    for (const text of [
      'HARD_CAP_REACHED',
      'REPORT_LOCKED_BY_PROFILE',
      'Retry guidance',
      'X-RateLimit-Reset',
      'exponential backoff',
      'Metering',
      'ceil(days / 30)',
      '/v1/reports/overview',
    ])
      assert.ok(info.includes(text), `the description shows ${text}`);
    assert.ok((await page.$$('.information-container table')).length >= 3, 'error, metering and example tables render as tables');

    // Interactive: an operation opens with its parameters and a "Try it out" button.
    await page.click('#operations-Metrics-getTimeseries .opblock-summary');
    await page.waitForSelector('#operations-Metrics-getTimeseries .try-out__btn', { timeout: 10_000 });
    const params = await page.$$eval('#operations-Metrics-getTimeseries .parameters-col_name', (els) =>
      // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered, what a reader sees
      els.map((e) => (e as HTMLElement).innerText),
    );
    assert.ok(
      params.some((p) => p.startsWith('site_id')),
      params.join(),
    );

    assert.deepEqual(errors, [], 'no script error');
    const origin = new URL(server.address).origin;
    const offHost = requested.filter((u) => !u.startsWith(origin + '/') && !/^(data|blob|about):/.test(u));
    assert.deepEqual(offHost, [], 'every request goes to the server itself');
    assert.ok(
      requested.some((u) => u.endsWith('/docs/json')),
      'the page read the served document',
    );
  } finally {
    await context.close();
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(profile, { recursive: true, force: true });
  }
});
