// Faults on real servers: each store of the scale stack (ClickHouse, PostgreSQL, Redis) is stopped
// during the test under a running API server, then started again. While it is down, analytics answers
// 503 ANALYTICS_DB_UNAVAILABLE, the control plane 503 CONTROL_PLANE_UNAVAILABLE on every way in (collection
// keeps taking the events of the domains it knows), the limiter a 500 envelope; nothing is charged; once
// it is back the same server answers as before, without a restart.
// The servers are this test's own (scripts/services.sh in a temp dir, free ports).
import { after as afterAll, before as beforeAll } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/config.js';
import { systemClock } from '../../src/domain/clock.js';
import { RETRY_AFTER_SECONDS } from '../../src/http/server/error-envelope.js';
import { analyticsRoutes, platformRoutes } from '../../src/http/v1/index.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { PASSWORD } from '../http/helpers/app-api.js';
import { embedKey, mint, shareLink } from '../http/helpers/embeds.js';
import { TEST_HASHER, type Harness } from '../http/helpers/harness.js';
import { CHROME } from '../http/helpers/collect.js';
import { ownServicesSkip, startOwnServices, type OwnServices } from './fixtures/own-services.js';
import { skippable } from '../helpers/services.js';
import { get, seed, timeseriesPath, type Seeded } from './fixtures/seed.js';

const skip = ownServicesSkip();

{
  // without the servers every test below is listed as skipped, with the reason (where they must run, the file fails)
  const test = skippable(skip);
  const before = skip ? () => {} : beforeAll;
  const after = skip ? () => {} : afterAll;
  let svc: OwnServices;
  let server: RunningServer;
  let s: Seeded;
  let dataDir: string;

  before(async () => {
    svc = await startOwnServices();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-faults-'));
    const config = loadConfig(
      {
        dataDir,
        host: '127.0.0.1',
        port: 0,
        logLevel: (process.env.FF_FAULT_LOG as 'silent') ?? 'silent',
        controlUrl: svc.postgresUrl,
        redisUrl: svc.redisUrl,
        eventsUrl: svc.clickhouseUrl,
      },
      {},
    );
    server = await startServer(config, { overrides: { hasher: TEST_HASHER } });
    s = await seed(server.container.catalog, server.container.events);
  });

  after(async () => {
    await server?.close().catch(() => undefined);
    await svc?.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** units used this month, read from the ledger behind the server */
  const used = async () => (await get(server.address, '/v1/usage/current', s.secret)).body.units_used as number;

  /** the same server, asked again until it answers 200 (at most 20 s), never restarted */
  const untilAnswered = async (p: string) => {
    let r = await get(server.address, p, s.secret);
    for (let i = 0; i < 100 && r.status !== 200; i++) {
      await new Promise((res) => setTimeout(res, 200));
      r = await get(server.address, p, s.secret);
    }
    return r;
  };

  const isEnvelope = (body: any, code: string) => {
    assert.equal(typeof body?.error?.message, 'string', JSON.stringify(body));
    assert.equal(typeof body.error.request_id, 'string');
    assert.equal(body.error.code, code, JSON.stringify(body));
  };

  test('ClickHouse down: 503 ANALYTICS_DB_UNAVAILABLE, nothing charged, the same answers once it is back', async () => {
    const before = await get(server.address, timeseriesPath(s), s.secret);
    assert.equal(before.status, 200, JSON.stringify(before.body));
    assert.equal(before.body.current.total, 36);
    const units = await used();
    assert.ok(units > 0);

    await svc.stopClickHouse();
    for (const p of [
      timeseriesPath(s, 'visitors'),
      timeseriesPath(s),
      `/v1/reports/overview?site_id=${s.siteId}&from=${s.from}&to=${s.to}`,
    ]) {
      const down = await get(server.address, p, s.secret);
      assert.equal(down.status, 503, p);
      isEnvelope(down.body, 'ANALYTICS_DB_UNAVAILABLE');
    }
    assert.equal((await get(server.address, '/v1/me', s.secret)).status, 200, 'the control plane still answers');
    assert.equal(await used(), units, 'refused requests charge nothing');
    assert.equal((await fetch(server.address + '/healthz')).status, 503);

    await svc.startClickHouse();
    const back = await get(server.address, timeseriesPath(s), s.secret);
    assert.equal(back.status, 200, JSON.stringify(back.body));
    assert.deepEqual(back.body.current, before.body.current);
    assert.equal(await used(), 2 * units);
    assert.equal((await fetch(server.address + '/healthz')).status, 200);
  });

  /** A request as a browser would send it (a session cookie, its CSRF token), answered as status and parsed body. */
  const send = async (
    method: string,
    p: string,
    o: { cookie?: string; csrf?: string; bearer?: string; body?: unknown; type?: string } = {},
  ) => {
    const headers: Record<string, string> = {};
    if (o.cookie) headers.cookie = o.cookie;
    if (o.csrf) headers['x-csrf-token'] = o.csrf;
    if (o.bearer) headers.authorization = `Bearer ${o.bearer}`;
    if (o.body !== undefined) headers['content-type'] = o.type ?? 'application/json';
    if (o.type === 'text/plain') headers['user-agent'] = CHROME;
    const r = await fetch(server.address + p, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
    const text = await r.text();
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON (a 202's ok): kept as text
    }
    return { status: r.status, body, headers: r.headers };
  };

  /** Every /v1 route, with the parameters it needs to pass its checks. */
  const v1Paths = () =>
    [...platformRoutes, ...analyticsRoutes].map((d) => {
      const q = new URLSearchParams();
      if (d.site) q.set('site_id', s.siteId);
      if (d.url === '/v1/metrics/breakdown') q.set('dimension', 'page');
      return q.size ? `${d.url}?${q}` : d.url;
    });

  test('PostgreSQL down: 503 CONTROL_PLANE_UNAVAILABLE with Retry-After on every way in, collection still takes known domains, nothing charged, the same answers once it is back', async () => {
    // a person, a share link and an embed token made while the control plane is up
    const email = `faults-${Date.now()}@example.com`;
    const user = await server.container.people!.createUser({ email, passwordHash: await TEST_HASHER.hash(PASSWORD) });
    await server.container.people!.addMember({ workspaceId: s.workspaceId, userId: user.id, role: 'owner' });
    const signIn = await send('POST', '/app/api/session', { body: { email, password: PASSWORD } });
    assert.equal(signIn.status, 200, JSON.stringify(signIn.body));
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0];
    const session = { cookie, csrf: signIn.body.csrf_token as string };
    const stores = {
      catalog: server.container.catalog,
      people: server.container.people!,
      container: server.container,
      clock: systemClock,
    } as unknown as Harness;
    const share = await shareLink(stores, s.siteId);
    const key = await embedKey(stores, s.workspaceId);
    const parent = (await server.container.catalog.listTokens(s.workspaceId))[0];
    const embed = mint(stores, key, { token_id: parent.id, site_id: s.siteId });
    const hostname = (await server.container.catalog.getSite(s.siteId))!.hostnames[0];
    const event = (domain: string) =>
      send('POST', '/api/event', { type: 'text/plain', body: { n: 'pageview', u: `https://${domain}/down`, d: domain } });
    // the collector learns the domain's site now; it keeps it through the outage
    assert.equal((await event(hostname)).status, 202);
    const learnedAt = Date.now();

    const reads: [string, () => ReturnType<typeof send>][] = [
      ...v1Paths().map((p): [string, () => ReturnType<typeof send>] => [`GET ${p}`, () => send('GET', p, { bearer: s.secret })]),
      ['embed GET /v1/goals', () => send('GET', '/v1/goals', { bearer: embed })],
      ['GET /app/api/workspaces', () => send('GET', '/app/api/workspaces', session)],
      ['GET /app/api/sites/:site_id', () => send('GET', `/app/api/sites/${s.siteId}`, session)],
      ['dashboard read', () => send('GET', `/app/api/v1/goals?site_id=${s.siteId}`, session)],
      ['share read', () => send('GET', `/share/${share.slug}/api/v1/goals`)],
    ];
    const unitsBefore = await used();
    const before = new Map<string, number>();
    for (const [what, run] of reads) before.set(what, (await run()).status);
    assert.deepEqual(
      [...before].filter(([, status]) => status !== 200),
      [],
      'every read answers while the control plane is up',
    );
    const units = await used();
    const perRound = units - unitsBefore;
    assert.ok(perRound > 0, 'the reads are metered');

    await svc.stopPostgres();
    try {
      const downs: [string, () => ReturnType<typeof send>][] = [
        ...reads,
        ['POST /app/api/workspaces', () => send('POST', '/app/api/workspaces', { ...session, body: { name: 'While down' } })],
        ['POST /app/api/session', () => send('POST', '/app/api/session', { body: { email, password: PASSWORD } })],
      ];
      for (const [what, run] of downs) {
        const down = await run();
        assert.equal(down.status, 503, `${what}: ${JSON.stringify(down.body)}`);
        isEnvelope(down.body, 'CONTROL_PLANE_UNAVAILABLE');
        assert.equal(down.headers.get('retry-after'), String(RETRY_AFTER_SECONDS.CONTROL_PLANE_UNAVAILABLE), what);
      }
      assert.equal((await fetch(server.address + '/healthz')).status, 503);
      // a domain the collector never resolved cannot be told apart from a stranger's: 503, said so
      const unknown = await event('never-seen.example');
      assert.equal(unknown.status, 503, JSON.stringify(unknown.body));
      isEnvelope(unknown.body, 'CONTROL_PLANE_UNAVAILABLE');
      // past the collector's memo (10 s), a known domain is still taken: its events wait in the spool
      await new Promise((r) => setTimeout(r, Math.max(0, learnedAt + 10_500 - Date.now())));
      const known = await event(hostname);
      assert.equal(known.status, 202, JSON.stringify(known.body));
    } finally {
      // restarted whatever happened above: the next test needs its PostgreSQL
      await svc.startPostgres();
    }
    // a pooled connection the restart cut may fail one request before the pool replaces it
    const me = await untilAnswered('/v1/me');
    assert.equal(me.status, 200, JSON.stringify(me.body));
    for (const [what, run] of reads) assert.equal((await run()).status, 200, `${what} once the control plane is back`);
    assert.equal(await used(), units + perRound, 'nothing was charged while it was down: only the reads made since');
  });

  test('Redis down: the limiter fails closed with a 500 envelope, nothing charged, answers again once it is back', async () => {
    const units = await used();
    await svc.stopRedis();
    const down = await get(server.address, timeseriesPath(s), s.secret);
    assert.equal(down.status, 500);
    isEnvelope(down.body, 'INTERNAL_ERROR');
    await svc.startRedis();
    // the client reconnects on its own (back-off up to 2 s): wait for it, never restart the server
    const me = await untilAnswered('/v1/me');
    assert.equal(me.status, 200, JSON.stringify(me.body));
    assert.equal(me.headers.get('x-ratelimit-limit') !== null, true, 'the limiter is back in the path');
    assert.equal(await used(), units, 'nothing was charged while it was down');
  });
}
