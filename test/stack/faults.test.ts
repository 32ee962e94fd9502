// Faults on real servers: each store of the scale stack (ClickHouse, PostgreSQL, Redis) is stopped
// during the test under a running API server, then started again. While it is down, analytics answers
// 503 ANALYTICS_DB_UNAVAILABLE, the control plane and the limiter a 5xx error envelope; nothing is
// charged; once it is back the same server answers as before, without a restart.
// The servers are this test's own (scripts/services.sh in a temp dir, free ports).
import { after as afterAll, before as beforeAll } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/config.js';
import { startServer, type RunningServer } from '../../src/main.js';
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
      { dataDir, host: '127.0.0.1', port: 0, logLevel: (process.env.FF_FAULT_LOG as 'silent') ?? 'silent', controlUrl: svc.postgresUrl, redisUrl: svc.redisUrl, eventsUrl: svc.clickhouseUrl },
      {},
    );
    server = await startServer(config);
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
    for (const p of [timeseriesPath(s, 'visitors'), timeseriesPath(s), `/v1/reports/overview?site_id=${s.siteId}&from=${s.from}&to=${s.to}`]) {
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

  test('PostgreSQL down: a 500 error envelope, nothing charged, answers again once it is back', async () => {
    const units = await used();
    await svc.stopPostgres();
    for (const p of ['/v1/me', timeseriesPath(s)]) {
      const down = await get(server.address, p, s.secret);
      assert.equal(down.status, 500, p);
      isEnvelope(down.body, 'INTERNAL_ERROR');
    }
    await svc.startPostgres();
    // a pooled connection the restart cut may fail one request before the pool replaces it
    const me = await untilAnswered('/v1/me');
    assert.equal(me.status, 200, JSON.stringify(me.body));
    assert.equal(await used(), units, 'nothing was charged while it was down');
    assert.equal((await get(server.address, timeseriesPath(s), s.secret)).status, 200);
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
