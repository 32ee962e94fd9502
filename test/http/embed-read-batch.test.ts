// GET /embed/api/reads: the embed page's reads of /v1 in one request, with its embed token. Each line is
// what the read sent alone with that token answers (its numbers, its refusal, its units); the units a
// batch charges are those of its reads, none for the batch itself; a batch whose token is missing,
// forged, expired, revoked or an API token is one 401, as /v1 gives it, and no read is made; bad input
// is one 422 naming the member of r; the token reaches no log line.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { EXPIRED_EMBED_TOKEN } from '../../src/domain/embeds.js';
import type { MetricsHarness } from './metrics-harness.js';
import { embedKey, mint, type TestEmbedKey } from './helpers/embeds.js';
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

const BATCH = '/embed/api/reads';

let h: MetricsHarness;
let app: FastifyInstance;
let log: ReturnType<typeof requestLog>;
let site: string;
let tenantA: string;
let tenantB: string;
let parent: { id: string; secret: string };
let key: TestEmbedKey;
let embed: string;

before(async () => {
  ({ h, app, log, site, tenantA, tenantB } = await batchWorld());
  parent = await h.token(h.ws.id);
  key = await embedKey(h, h.ws.id, ['https://app.example.com']);
  embed = mint(h, key, { token_id: parent.id, site_id: site, tenant_id: tenantA });
});
after(async () => {
  await app?.close();
  await h?.close();
});

const used = () => h.container.ledger.used(h.ws.id, '2025-06');
/** the parent's window: move the standing clock past the last second */
const nextSecond = () => h.clock.advance(1_100);
const get = (url: string, token?: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } });
/** the /v1 reads the server took (alone or in a batch) */
const v1Reads = () => log.urls().filter((u) => u.startsWith('/v1/'));

const reads = () => pageReads(site, FROM, TO);

test('a batch answers each read on its own line with what the read sent alone with the token answers, and charges the same units, none for itself', async () => {
  nextSecond();
  const before = await used();
  const lines = batchLines(await get(batchUrl(BATCH, reads()), embed), reads());
  assert.deepEqual(
    lines.map((l) => l.status),
    reads().map(() => 200),
    JSON.stringify(lines.filter((l) => l.status !== 200)).slice(0, 300),
  );
  const mid = await used();
  assert.ok(v1Reads().length >= reads().length, 'the reads were made (and logged)');
  nextSecond();
  const answers = await assertLinesAsAlone(lines, reads(), (read) => get(read, embed));
  const alone = answers.reduce((sum, res) => sum + (res.json().meta?.units_charged ?? 0), 0);
  const units = lines.reduce((sum, l) => sum + (l.body.meta?.units_charged ?? 0), 0);
  assert.ok(units > 0, 'the reads are metered');
  assert.equal(units, alone, 'the same units as the reads sent alone');
  assert.equal(mid - before, units, 'the batch charged its reads, nothing for itself');
  assert.equal((await used()) - mid, alone);
});

test("a read the token may not make is refused on its line as it is refused alone; the batch's others still answer", async () => {
  const mixed = mixedReads(site, tenantB, FROM, TO);
  nextSecond();
  const lines = batchLines(await get(batchUrl(BATCH, mixed), embed), mixed);
  nextSecond();
  await assertLinesAsAlone(lines, mixed, (read) => get(read, embed));
  assert.deepEqual(
    lines.map((l) => l.status),
    [403, 200, 422],
  );
});

test('a batch without a good embed token is one 401, as /v1 refuses the read, and no read is made', async () => {
  const now = Math.floor(h.clock.now().getTime() / 1000);
  const revokedKey = await embedKey(h, h.ws.id);
  const ofRevokedKey = mint(h, revokedKey, { token_id: parent.id, site_id: site });
  await h.container.embeds!.revokeEmbedKey(revokedKey.id, h.clock.now().toISOString());
  const cases: [string, string | undefined, RegExp | null][] = [
    ['no token', undefined, null],
    [
      'a forged token',
      mint(h, { id: key.id, secret: 'ff_embed_not_the_secret' }, { token_id: parent.id, site_id: site }),
      /not signed with the secret/,
    ],
    [
      'an expired token',
      mint(h, key, { token_id: parent.id, site_id: site, iat: now - 7200, exp: now - 60 }),
      new RegExp(EXPIRED_EMBED_TOKEN.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
    ],
    ["a revoked key's token", ofRevokedKey, /unknown or revoked/],
  ];
  for (const [what, token, message] of cases) {
    nextSecond();
    const alone = await get(reads()[0], token);
    const readsBefore = v1Reads().length;
    const res = await get(batchUrl(BATCH, reads()), token);
    const error = refused(res, 401, 'UNAUTHORIZED', what);
    assert.equal(error.message, alone.json().error.message, `${what}: the message /v1 gives`);
    if (message) assert.match(error.message, message, what);
    assert.equal(v1Reads().length, readsBefore, `${what}: no read made`);
  }
  // an API token never sits in a page: the batch refuses it unread
  const readsBefore = v1Reads().length;
  assert.match(
    refused(await get(batchUrl(BATCH, reads()), parent.secret), 401, 'UNAUTHORIZED', 'an API token').message,
    /never an API token/,
  );
  assert.equal(v1Reads().length, readsBefore, 'no read made with an API token');
});

test('bad input is one 422 naming the member of r, before any read; one read alone is a batch of one', async () => {
  nextSecond();
  const readsBefore = v1Reads().length;
  const at = async (reads: string[]) => refused(await get(batchUrl(BATCH, reads), embed), 422, 'INVALID_PARAMS', reads.join(' '));
  assert.equal((await at(['/v1/me'])).details?.parameter, 'r.0');
  const second = await at([reads()[0], '/v1/tenants?site_id=x']);
  assert.equal(second.details?.parameter, 'r.1');
  assert.match(second.message, /\/v1\/reports\/overview/, 'it lists the reads a batch takes');
  assert.equal((await at([reads()[0], `/app/api${reads()[1]}`])).details?.parameter, 'r.1');
  assert.equal((await at(Array.from({ length: 33 }, () => reads()[0]))).details?.parameter, 'r');
  assert.equal(refused(await get(BATCH, embed), 422, 'INVALID_PARAMS', 'no r').details?.parameter, 'r');
  assert.equal(
    refused(await get(`${batchUrl(BATCH, [reads()[0]])}&site_id=${site}`, embed), 422, 'INVALID_PARAMS', 'another parameter').details
      ?.parameter,
    'site_id',
  );
  assert.equal(v1Reads().length, readsBefore, 'no read made');
  const one = linesOf((await get(batchUrl(BATCH, [reads()[0]]), embed)).body);
  assert.deepEqual(
    one.map((l) => [l.i, l.status]),
    [[0, 200]],
  );
});

test('the embed token reaches no log line, batch or read', () => {
  assert.ok(
    log.urls().some((u) => u.startsWith(`${BATCH}?`)),
    'the batches were logged',
  );
  assert.ok(v1Reads().length > 0, 'their reads were logged');
  for (const part of embed.split('.').filter((p) => p.length > 20))
    assert.ok(!log.text().includes(part), 'the log holds part of the embed token');
  assert.ok(!log.text().includes(parent.secret), 'the log holds the API token');
});

test("a query API read in the embed's batch is made as POST /api/v2/query with the token: the same answer and units, sealed to its tenant", async () => {
  const body = { site_id: site, date_range: [FROM, TO], metrics: ['visitors', 'pageviews'], dimensions: ['event:page'] };
  const members = [`/api/v2/query?${new URLSearchParams({ body: JSON.stringify(body) })}`, reads()[0]];
  nextSecond();
  const before = await used();
  const [line, other] = batchLines(await get(batchUrl(BATCH, members), embed), members).sort((a, b) => a.i - b.i);
  assert.equal(line.status, 200, JSON.stringify(line.body).slice(0, 300));
  assert.equal(other.status, 200);
  const charged = (await used()) - before;
  nextSecond();
  const alone = await app.inject({ method: 'POST', url: '/api/v2/query', headers: { authorization: `Bearer ${embed}` }, payload: body });
  assert.equal(alone.statusCode, 200, alone.body);
  assert.deepEqual(line.body.results, alone.json().results);
  assert.ok(line.body.meta.units_charged > 0, 'metered as the query alone');
  assert.equal(line.body.meta.units_charged, alone.json().meta.units_charged);
  assert.equal(charged, line.body.meta.units_charged + other.body.meta.units_charged, 'the batch charged its reads, nothing for itself');
  // another tenant: refused on its line as alone
  const foreign = [`/api/v2/query?${new URLSearchParams({ body: JSON.stringify({ ...body, tenant_id: tenantB }) })}`];
  nextSecond();
  const [refusedLine] = batchLines(await get(batchUrl(BATCH, foreign), embed), foreign);
  assert.equal(refusedLine.status, 403, JSON.stringify(refusedLine.body));
});
