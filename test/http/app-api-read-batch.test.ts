// GET /app/api/reads: several dashboard reads in one request, each answered on its own NDJSON line with
// exactly what the read sent alone answers (its numbers, its refusal), compressed as the client accepts
// and flushed line by line; each read counts against the session's window as it would alone, so the
// batch is no way around it; bad input is one 422 naming the member of `r`.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import type { MetricsHarness } from './metrics-harness.js';
import { call, checked, viewerOfReferenceSite, type Person } from './helpers/app-api.js';

const FROM = '2025-06-10';
const TO = '2025-06-12';

let h: MetricsHarness;
let site: string;
let viewer: Person;

before(async () => {
  ({ h, site, viewer } = await viewerOfReferenceSite());
});
after(() => h?.close());

const qs = (query: Record<string, string>) => new URLSearchParams(query).toString();
const batchUrl = (reads: string[]) => `/app/api/reads?${reads.map((r) => `r=${encodeURIComponent(r)}`).join('&')}`;
/** the windows of 100 requests in 5 seconds: move the standing clock past the last one */
const nextWindow = () => h.clock.advance(5_100);

type Line = { i: number; status: number; retry_after?: string; body: any };
const linesOf = (body: string): Line[] =>
  body
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
/** An answer without what differs between two sendings of the same read: its request id, and whether the response cache served it. */
function comparable(body: unknown): unknown {
  return JSON.parse(
    JSON.stringify(body, (key, value) => {
      if (key === 'request_id' || key === 'cached') return undefined;
      if (key === 'notes' && Array.isArray(value)) return value.filter((n) => !String(n).startsWith('Served from the response cache'));
      return value;
    }),
  );
}

/** Seven of the dashboard's reads of the site, as the page asks for them. */
const reads = () => [
  `/v1/reports/overview?${qs({ site_id: site, from: FROM, to: TO })}`,
  `/v1/metrics/timeseries?${qs({ site_id: site, from: FROM, to: TO, metric: 'visitors', compare: 'prev_period' })}`,
  `/v1/metrics/breakdown?${qs({ site_id: site, from: FROM, to: TO, dimension: 'country', metric: 'visitors' })}`,
  `/v1/reports/content?${qs({ site_id: site, from: FROM, to: TO })}`,
  `/v1/reports/acquisition?${qs({ site_id: site, from: FROM, to: TO })}`,
  `/v1/goals/conversions?${qs({ site_id: site, from: FROM, to: TO })}`,
  `/v1/tenants?${qs({ site_id: site })}`,
];

test('a batch answers each read on its own line with exactly what the read sent alone answers', async () => {
  nextWindow();
  const batch = await checked(h, viewer, 'GET', batchUrl(reads()));
  assert.equal(batch.statusCode, 200, batch.body);
  assert.match(String(batch.headers['content-type']), /^application\/x-ndjson/);
  assert.equal(batch.headers['cache-control'], 'no-store');
  const lines = linesOf(batch.body);
  assert.deepEqual(
    lines.map((l) => l.i).sort((a, b) => a - b),
    reads().map((_, i) => i),
    'one line per read',
  );
  nextWindow();
  for (const line of lines) {
    const alone = await call(h, viewer, 'GET', `/app/api${reads()[line.i]}`);
    assert.equal(line.status, alone.statusCode, reads()[line.i]);
    assert.equal(line.status, 200, `${reads()[line.i]}: ${JSON.stringify(line.body).slice(0, 300)}`);
    assert.deepEqual(comparable(line.body), comparable(alone.json()), reads()[line.i]);
  }
});

test("a read the person may not make is refused on its line as it is refused alone; the batch's others still answer", async () => {
  const other = await h.workspace('pro');
  const foreign = (
    await h.catalog.createSite({ workspaceId: other.id, name: 'Theirs', hostnames: ['theirs.example'], collectionProfile: 'extended' })
  ).id;
  const mixed = [
    `/v1/reports/overview?${qs({ site_id: foreign, from: FROM, to: TO })}`,
    reads()[0],
    `/v1/metrics/breakdown?${qs({ site_id: site, from: FROM, to: TO, dimension: 'nope', metric: 'visitors' })}`,
  ];
  nextWindow();
  const lines = linesOf((await checked(h, viewer, 'GET', batchUrl(mixed))).body).sort((a, b) => a.i - b.i);
  nextWindow();
  for (const [i, read] of mixed.entries()) {
    const alone = await call(h, viewer, 'GET', `/app/api${read}`);
    assert.equal(lines[i].status, alone.statusCode, read);
    assert.deepEqual(comparable(lines[i].body), comparable(alone.json()), read);
  }
  assert.deepEqual(
    lines.map((l) => l.status),
    [403, 200, 422],
  );
});

test('each read counts against the session window as it would alone: 100 in 5 seconds, the batch included', async () => {
  nextWindow();
  // 80 of the 100 spent, then a batch of 20 reads: the batch takes one, its reads 19 and one 429
  for (let i = 0; i < 80; i++) assert.equal((await call(h, viewer, 'GET', '/app/api/session')).statusCode, 200, `request ${i + 1}`);
  const twenty = Array.from(
    { length: 20 },
    (_, k) => `/v1/reports/overview?${qs({ site_id: site, to: TO, from: `2025-05-${String(k + 1).padStart(2, '0')}` })}`,
  );
  const res = await checked(h, viewer, 'GET', batchUrl(twenty));
  assert.equal(res.statusCode, 200, res.body);
  const lines = linesOf(res.body);
  assert.equal(lines.length, 20);
  const limited = lines.filter((l) => l.status === 429);
  assert.equal(limited.length, 1, 'the batch took one of the last 20, its reads the other 19');
  assert.equal(
    lines.filter((l) => l.status === 200).length,
    19,
    JSON.stringify(lines.filter((l) => l.status !== 200 && l.status !== 429)).slice(0, 300),
  );
  assert.equal(limited[0].body.error.code, 'RATE_LIMITED');
  assert.match(limited[0].retry_after ?? '', /^\d+$/, 'the line carries the Retry-After the read would have had');
});

test('compressed as the client accepts (br, then gzip), the same lines', async () => {
  nextWindow();
  const plain = linesOf((await call(h, viewer, 'GET', batchUrl(reads()))).body);
  for (const [accept, encoding, inflate] of [
    ['gzip, deflate, br', 'br', zlib.brotliDecompressSync],
    ['gzip', 'gzip', zlib.gunzipSync],
    ['br;q=0, gzip', 'gzip', zlib.gunzipSync],
  ] as const) {
    nextWindow();
    const res = await h.app.inject({
      method: 'GET',
      url: batchUrl(reads()),
      headers: { cookie: `footfall_session=${viewer.cookie}`, 'accept-encoding': accept },
    });
    assert.equal(res.headers['content-encoding'], encoding, accept);
    assert.match(String(res.headers.vary), /accept-encoding/i);
    const lines = linesOf(inflate(res.rawPayload).toString('utf8'));
    const byI = (ls: Line[]) => ls.sort((a, b) => a.i - b.i).map((l) => [l.status, comparable(l.body)]);
    assert.deepEqual(byI(lines), byI(plain), accept);
  }
});

test('bad input is one 422 naming the member of r; no session is one 401; one read alone is a batch of one', async () => {
  const refused = async (res: LightMyRequestResponse, status: number, field?: string) => {
    assert.equal(res.statusCode, status, res.body);
    const { error } = res.json();
    if (field) assert.equal(error.details?.field, field, res.body);
    assert.ok(error.message.length > 0);
    return error.message as string;
  };
  nextWindow();
  assert.match(await refused(await checked(h, viewer, 'GET', batchUrl(['/v1/me'])), 422, 'r.0'), /dashboard read/);
  assert.match(await refused(await checked(h, viewer, 'GET', batchUrl([reads()[0], '/sites'])), 422, 'r.1'), /\/v1\/reports\/overview/);
  await refused(await checked(h, viewer, 'GET', batchUrl(Array.from({ length: 33 }, () => reads()[0]))), 422, 'r');
  await refused(await checked(h, viewer, 'GET', '/app/api/reads'), 422, 'r');
  await refused(await checked(h, null, 'GET', batchUrl(reads())), 401);
  nextWindow();
  const one = linesOf((await checked(h, viewer, 'GET', batchUrl([reads()[0]]))).body);
  assert.deepEqual(
    one.map((l) => [l.i, l.status]),
    [[0, 200]],
  );
});

test('a query API read in a batch (its body in `body`) is made as the POST twin: the same answer, the CSRF token checked as alone', async () => {
  nextWindow();
  const body = {
    site_id: site,
    date_range: [FROM, TO],
    metrics: ['visitors', 'pageviews'],
    dimensions: ['visit:country'],
    filters: [['contains', 'event:page', ['/'], { case_sensitive: false }]],
    include: { compare: 'previous_period' },
  };
  const query = `/api/v2/query?${qs({ body: JSON.stringify(body) })}`;
  const funnel = `/api/v2/funnel?${qs({ body: JSON.stringify({ site_id: site, date_range: [FROM, TO], steps: [{ page: '/' }, { page: '/pricing' }] }) })}`;
  const withToken = await checked(h, viewer, 'GET', batchUrl([query, funnel, reads()[0]]), { headers: { 'x-csrf-token': viewer.csrf } });
  assert.equal(withToken.statusCode, 200, withToken.body);
  const lines = linesOf(withToken.body).sort((a, b) => a.i - b.i);
  nextWindow();
  const alone = await call(h, viewer, 'POST', '/app/api/api/v2/query', { body });
  assert.equal(alone.statusCode, 200, alone.body);
  assert.equal(lines[0].status, 200, JSON.stringify(lines[0].body));
  assert.ok(lines[0].body.results.length > 0, 'the reference site has countries');
  assert.deepEqual(comparable(lines[0].body), comparable(alone.json()));
  const funnelAlone = await call(h, viewer, 'POST', '/app/api/api/v2/funnel', {
    body: { site_id: site, date_range: [FROM, TO], steps: [{ page: '/' }, { page: '/pricing' }] },
  });
  assert.equal(lines[1].status, 200, JSON.stringify(lines[1].body));
  assert.deepEqual(comparable(lines[1].body), comparable(funnelAlone.json()));
  assert.equal(lines[2].status, 200);

  // without the session's token the query member is refused as the POST alone is; the GET member still answers
  nextWindow();
  const without = await checked(h, viewer, 'GET', batchUrl([query, reads()[0]]));
  const [q, overview] = linesOf(without.body).sort((a, b) => a.i - b.i);
  const refusedAlone = await call(h, viewer, 'POST', '/app/api/api/v2/query', { body, csrf: false });
  assert.equal(q.status, 403);
  assert.equal(q.status, refusedAlone.statusCode);
  assert.equal(q.body.error.code, refusedAlone.json().error.code);
  assert.equal(overview.status, 200);

  // a body that is not the query API's: the route's own 4xx, naming the field, on its line
  nextWindow();
  const bad = await checked(h, viewer, 'GET', batchUrl([`/api/v2/query?${qs({ body: JSON.stringify({ ...body, metrics: ['nope'] }) })}`]), {
    headers: { 'x-csrf-token': viewer.csrf },
  });
  const [badLine] = linesOf(bad.body);
  assert.equal(badLine.status, 422, JSON.stringify(badLine.body));
  assert.match(badLine.body.error.message, /metrics/);
});
