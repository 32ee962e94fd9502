// kill -9 of `footfall serve` while trackers send events and the loader commits: after a restart,
// every event that was answered 202 is counted exactly once, and engagement is never added twice.
// (A 202 means the event was on disk; the spool and the loader's checkpoint do the rest.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { openControlPlane } from '../../src/control/open-control-plane.js';
import { generateSecret, hashSecret } from '../../src/domain/tokens.js';
import { FOOTFALL_BIN as BIN } from '../helpers/footfall-bin.js';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

async function serve(dataDir: string): Promise<{ base: string; child: ChildProcess }> {
  const port = await freePort();
  let err = '';
  const child = spawn(
    process.execPath,
    [BIN, 'serve', '--host', '127.0.0.1', '--port', String(port), '--data-dir', dataDir, '--log-level', 'warn'],
    {
      env: { ...process.env, FOOTFALL_GEOIP_DB: 'off', FOOTFALL_COLLECT_RATE_LIMIT: '0' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  child.stderr!.on('data', (d) => (err += d));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`footfall serve exited ${child.exitCode}: ${err}`);
    if (
      await fetch(base + '/healthz').then(
        (r) => r.ok,
        () => false,
      )
    )
      return { base, child };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`footfall serve did not answer: ${err}`);
}

const kill9 = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

const post = (base: string, body: unknown) =>
  fetch(base + '/api/event', {
    method: 'POST',
    headers: { 'content-type': 'text/plain', 'user-agent': UA },
    body: JSON.stringify(body),
  }).then(
    (r) => r.status,
    () => 0, // the connection died with the process: not acknowledged
  );

const SENDERS = 8;
/** 5 rounds of at most this many pages stay under the content report's limit of 2000 rows */
const PAGES_PER_ROUND = 380;

interface Sent {
  /** the pageview was answered 202 */
  viewed: boolean;
  /** engagement ms sent for the page (after its pageview's 202), and whether it was answered 202 */
  engagement: number;
  engaged: 'no' | 'sent' | 'acked';
}

test('kill -9 at any moment loses no acknowledged event and counts none twice', { timeout: 180_000 }, async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-crash-'));
  const cp = await openControlPlane({ dataDir });
  const ws = await cp.catalog.createWorkspace({ name: 'crash', plan: 'pro' });
  const site = await cp.catalog.createSite({
    workspaceId: ws.id,
    name: 'live',
    hostnames: ['live.example'],
    collectionProfile: 'extended',
  });
  const secret = generateSecret(randomBytes);
  await cp.catalog.createToken({ workspaceId: ws.id, scopes: ['metrics:read'], secretHash: hashSecret(secret) });
  await cp.close();

  const sent = new Map<string, Sent>();
  let server: { base: string; child: ChildProcess } | null = null;
  try {
    // Rounds: a stream of pageviews and their engagement from 8 senders, cut by kill -9 after a
    // random time (before the first load, during loads, between them); the last round is cut at once.
    const cuts = [0.3, 2.2, 3.1, 4.6, 1.0];
    for (const [round, cutS] of cuts.entries()) {
      server = await serve(dataDir);
      const base = server.base;
      let stop = false;
      let n = 0;
      // At most PAGES_PER_ROUND pages, spread over the round: one report lists every page of the test
      // (its limit is 2000) however fast this machine answers.
      const pace = (cutS * 1000 * SENDERS) / PAGES_PER_ROUND;
      const sender = async () => {
        while (!stop && n < PAGES_PER_ROUND) {
          const page = `/r${round}/p${n++}`;
          const s: Sent = { viewed: false, engagement: 1000 + n, engaged: 'no' };
          sent.set(page, s);
          s.viewed = (await post(base, { n: 'pageview', u: `https://live.example${page}`, d: 'live.example', r: null, v: 36 })) === 202;
          if (!s.viewed || stop) continue;
          s.engaged = 'sent';
          if (
            (await post(base, {
              n: 'engagement',
              u: `https://live.example${page}`,
              d: 'live.example',
              e: s.engagement,
              sd: 100,
              v: 36,
            })) === 202
          )
            s.engaged = 'acked';
          await new Promise((r) => setTimeout(r, pace));
        }
      };
      const senders = Array.from({ length: SENDERS }, sender);
      await new Promise((r) => setTimeout(r, cutS * 1000 * (0.8 + Math.random() * 0.4)));
      await kill9(server.child);
      stop = true;
      await Promise.all(senders);
      server = null;
    }

    // A last start replays what the spool still holds.
    server = await serve(dataDir);
    const acked = [...sent.values()].filter((s) => s.viewed).length;
    assert.ok(acked > 100, `only ${acked} pageviews were acknowledged`);
    const get = async (p: string) => {
      const r = await fetch(`${server!.base}${p}`, { headers: { authorization: `Bearer ${secret}` } });
      assert.equal(r.status, 200, await r.clone().text());
      return (await r.json()) as any;
    };
    const today = new Date().toISOString().slice(0, 10);
    const range = `site_id=${site.id}&from=${today}&to=${today}`;
    let total = 0;
    for (let i = 0; i < 100 && total < acked; i++) {
      total = (await get(`/v1/metrics/timeseries?${range}`)).current.total;
      if (total < acked) await new Promise((r) => setTimeout(r, 200));
    }
    const content = await get(`/v1/reports/content?${range}&include=full&limit=2000`);
    const pages = new Map<string, { pageviews: number; eng: number }>(
      content.current.pages.map((p: { path_canon: string; pageviews: number; avg_page_eng_time_ms: number }) => [
        p.path_canon,
        { pageviews: p.pageviews, eng: p.avg_page_eng_time_ms },
      ]),
    );
    assert.equal(content.current.pages.length, pages.size);
    assert.ok(pages.size < 2000, 'every page is listed');
    let lost = 0;
    let twice = 0;
    let engagementWrong = 0;
    for (const [page, s] of sent) {
      const got = pages.get(page);
      if (s.viewed && !got) lost++;
      if (got && got.pageviews !== 1) twice++;
      if (!got) continue;
      // acknowledged engagement counted once; unacknowledged at most once; none doubled
      const ok =
        s.engaged === 'acked' ? got.eng === s.engagement : s.engaged === 'sent' ? got.eng === 0 || got.eng === s.engagement : got.eng === 0;
      if (!ok) engagementWrong++;
    }
    assert.deepEqual(
      { lost, twice, engagementWrong },
      { lost: 0, twice: 0, engagementWrong: 0 },
      `${acked} acknowledged of ${sent.size} sent`,
    );
    assert.ok(total >= acked && total <= sent.size, `${total} stored, ${acked} acknowledged, ${sent.size} sent`);
    // Each start took its spool back (one spool); it keeps only what is still to load (and the active segment).
    const spools = fs.readdirSync(path.join(dataDir, 'spool'), { withFileTypes: true }).filter((e) => e.isDirectory());
    assert.equal(spools.length, 1, spools.map((e) => e.name).join());
    assert.ok(fs.readdirSync(path.join(dataDir, 'spool', spools[0].name)).filter((f) => f.endsWith('.log')).length <= 2);
  } finally {
    if (server) await kill9(server.child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
