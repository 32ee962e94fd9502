// GET /share/<slug>/api/reads: a share link's reads in one request, with the link's cookie. Each line is
// what the read sent alone under the link answers (its numbers, its refusal); a link that is gone, or
// locked without its cookie, refuses the batch as it refuses a read, and no read is made; bad input is
// one 422 naming the member of r; the batch is hidden from /openapi.json.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { MetricsHarness } from './metrics-harness.js';
import { shareLink } from './helpers/embeds.js';
import {
  assertLinesAsAlone,
  batchLines,
  batchUrl,
  batchWorld,
  FROM,
  linesOf,
  mixedReads,
  pageReads,
  refused,
  TO,
  type requestLog,
} from './helpers/read-batch.js';

const PASSWORD = 'open sesame please';

let h: MetricsHarness;
let app: FastifyInstance;
let log: ReturnType<typeof requestLog>;
let site: string;
let tenantA: string;
let tenantB: string;

before(async () => {
  ({ h, app, log, site, tenantA, tenantB } = await batchWorld());
});
after(async () => {
  await app?.close();
  await h?.close();
});

/** each viewer's window (20 a second): move the standing clock past the last one */
const nextSecond = () => h.clock.advance(1_100);
const get = (url: string, cookie?: string) =>
  app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {}, remoteAddress: '198.51.100.7' });
/** the share reads the server took, alone or in a batch (their slugs redacted in the log) */
const shareReads = () => log.urls().filter((u) => u.startsWith('/share/[redacted]/api/v1/'));

const reads = () => pageReads(site, FROM, TO);

test("a batch answers each read on its own line with what the read sent alone under the link answers: its tenant's numbers, unmetered", async () => {
  const link = await shareLink(h, site, { tenantId: tenantA });
  const used = await h.container.ledger.used(h.ws.id, '2025-06');
  nextSecond();
  const lines = batchLines(await get(batchUrl(`/share/${link.slug}/api/reads`, reads())), reads());
  assert.deepEqual(
    lines.map((l) => l.status),
    reads().map(() => 200),
    JSON.stringify(lines.filter((l) => l.status !== 200)).slice(0, 300),
  );
  nextSecond();
  await assertLinesAsAlone(lines, reads(), (read) => get(`/share/${link.slug}/api${read}`));
  for (const line of lines) if (line.body.meta) assert.equal(line.body.meta.units_charged, 0, reads()[line.i]);
  assert.deepEqual(
    lines[2].body.current.rows.map((r: { tenant_id: string }) => r.tenant_id),
    [tenantA],
    'sealed to its tenant',
  );
  assert.equal(await h.container.ledger.used(h.ws.id, '2025-06'), used, 'nothing charged');
});

test("a read the link may not make is refused on its line as it is refused alone; the batch's others still answer", async () => {
  const link = await shareLink(h, site, { tenantId: tenantA });
  const mixed = mixedReads(site, tenantB, FROM, TO);
  nextSecond();
  const lines = batchLines(await get(batchUrl(`/share/${link.slug}/api/reads`, mixed)), mixed);
  nextSecond();
  await assertLinesAsAlone(lines, mixed, (read) => get(`/share/${link.slug}/api${read}`));
  assert.deepEqual(
    lines.map((l) => l.status),
    [403, 200, 422],
  );
});

test('a gone link, and a locked one without its cookie, refuse the batch as they refuse a read, and no read is made; its cookie opens it', async () => {
  const locked = await shareLink(h, site, { password: PASSWORD });
  const revoked = await shareLink(h, site);
  await h.container.embeds!.revokeShareLink(revoked.id, h.clock.now().toISOString());
  const wrongCookie = `footfall_share=${Date.now() + 3600_000}.${'A'.repeat(43)}`;
  for (const [what, slug, cookie] of [
    ['an unknown link', 'Q'.repeat(40), undefined],
    ['a revoked link', revoked.slug, undefined],
    ['a locked link without its cookie', locked.slug, undefined],
    ['a locked link with a forged cookie', locked.slug, wrongCookie],
  ] as const) {
    nextSecond();
    const alone = await get(`/share/${slug}/api${reads()[0]}`, cookie);
    const readsBefore = shareReads().length;
    const error = refused(await get(batchUrl(`/share/${slug}/api/reads`, reads()), cookie), 401, 'UNAUTHORIZED', what);
    assert.equal(error.message, alone.json().error.message, `${what}: the message a read gets`);
    assert.equal(shareReads().length, readsBefore, `${what}: no read made`);
  }
  const unlocked = await app.inject({ method: 'POST', url: `/share/${locked.slug}/api/session`, payload: { password: PASSWORD } });
  assert.equal(unlocked.statusCode, 204, unlocked.body);
  const cookie = `footfall_share=${unlocked.cookies.find((c) => c.name === 'footfall_share')!.value}`;
  nextSecond();
  const readsBefore = shareReads().length;
  const lines = linesOf((await get(batchUrl(`/share/${locked.slug}/api/reads`, reads()), cookie)).body);
  assert.deepEqual(
    lines.map((l) => l.status),
    reads().map(() => 200),
    'the cookie goes with each read',
  );
  assert.equal(shareReads().length - readsBefore, reads().length, 'each read made (and logged) once');
});

test('bad input is one 422 naming the member of r, before any read; the batch is not in /openapi.json', async () => {
  const link = await shareLink(h, site);
  const url = (rs: string[]) => batchUrl(`/share/${link.slug}/api/reads`, rs);
  nextSecond();
  const readsBefore = shareReads().length;
  const at = async (rs: string[]) => refused(await get(url(rs)), 422, 'INVALID_PARAMS', rs.join(' '));
  assert.equal((await at(['/v1/me'])).details?.parameter, 'r.0');
  const second = await at([reads()[0], '/v1/tenants?site_id=x']);
  assert.equal(second.details?.parameter, 'r.1');
  assert.match(second.message, /\/v1\/reports\/overview/, 'it lists the reads a batch takes');
  assert.equal((await at([reads()[0], '/session'])).details?.parameter, 'r.1');
  assert.equal((await at(Array.from({ length: 33 }, () => reads()[0]))).details?.parameter, 'r');
  assert.equal(refused(await get(`/share/${link.slug}/api/reads`), 422, 'INVALID_PARAMS', 'no r').details?.parameter, 'r');
  assert.equal(shareReads().length, readsBefore, 'no read made');
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
  assert.deepEqual(
    Object.keys(doc.paths).filter((p) => p.includes('reads') || p.startsWith('/share') || p.startsWith('/embed')),
    [],
  );
});
