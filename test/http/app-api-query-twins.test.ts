// The query API's twins for the dashboard: POST /app/api/api/v2/query and /app/api/api/v2/funnel with the
// session cookie answer what /api/v2/query and /api/v2/funnel answer with a token (same bodies, same
// results), unmetered; as every POST of /app/api they need the session's CSRF token and this origin; a
// site of another workspace answers as /v2 answers a site the token may not read.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { MetricsHarness } from './metrics-harness.js';
import { call, person, viewerOfReferenceSite, type Person } from './helpers/app-api.js';

let h: MetricsHarness;
let site: string;
let viewer: Person;

before(async () => {
  ({ h, site, viewer } = await viewerOfReferenceSite());
});
after(() => h?.close());

const QUERY = {
  date_range: ['2025-06-01', '2025-06-14'],
  metrics: ['visitors', 'pageviews'],
  dimensions: ['event:page'],
  filters: [['contains', 'event:page', ['/']]],
  order_by: [['visitors', 'desc']],
  include: { compare: 'previous_period' },
};
const FUNNEL = { date_range: ['2025-06-01', '2025-06-14'], steps: [{ page: '/' }, { page: '/*' }] };

async function twin(
  who: Person | null,
  path: string,
  body: object,
  opts: { csrf?: false | string; headers?: Record<string, string> } = {},
) {
  h.clock.advance(60);
  return call(h, who, 'POST', `/app/api${path}`, { body, ...opts });
}

test("the twins answer the query API's results for a member, unmetered", async () => {
  for (const [path, body] of [
    ['/api/v2/query', QUERY],
    ['/api/v2/funnel', FUNNEL],
  ] as const) {
    const mine = await twin(viewer, path, { site_id: site, ...body });
    assert.equal(mine.statusCode, 200, mine.body);
    const theirs = await h.post(path, { site_id: site, ...body }, { token: h.secret });
    assert.equal(theirs.statusCode, 200, theirs.body);
    assert.deepEqual(mine.json().results ?? mine.json().steps, theirs.json().results ?? theirs.json().steps, path);
    assert.ok((mine.json().results ?? mine.json().steps).length > 0, `${path}: something to compare`);
    assert.equal(mine.json().meta.units_charged, 0, `${path}: not metered`);
  }
});

test("the twins need the session, its CSRF token and this origin; another workspace's site is refused as /v2 refuses it", async () => {
  const body = { site_id: site, ...QUERY };
  assert.equal((await twin(null, '/api/v2/query', body)).statusCode, 401);
  const noCsrf = await twin(viewer, '/api/v2/query', body, { csrf: false });
  assert.deepEqual([noCsrf.statusCode, noCsrf.json().error.code], [403, 'FORBIDDEN']);
  assert.match(noCsrf.json().error.message, /X-CSRF-Token/);
  assert.equal((await twin(viewer, '/api/v2/query', body, { csrf: 'x'.repeat(43) })).statusCode, 403);
  const foreign = await twin(viewer, '/api/v2/query', body, { headers: { origin: 'https://evil.example' } });
  assert.equal(foreign.statusCode, 403);
  assert.match(foreign.json().error.message, /accepted from http:\/\/127\.0\.0\.1:8080 only/);
  const ws = await h.catalog.createWorkspace({ name: 'Other', plan: 'pro' });
  const stranger = await person(h, { workspaceId: ws.id, role: 'owner' });
  const refused = await twin(stranger, '/api/v2/query', body);
  const unknown = await twin(stranger, '/api/v2/query', { ...body, site_id: 'site_does_not_exist' });
  assert.deepEqual([refused.statusCode, refused.json().error.code], [unknown.statusCode, unknown.json().error.code]);
  assert.equal(refused.statusCode, 403);
});
