import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from './helpers/harness.js';
import { ERROR_CATALOG, type ErrorCode } from '../../src/domain/errors.js';
import { openApiValidator, resolvePointer } from './helpers/openapi-check.js';
import type { CatalogStore } from '../../src/ports/catalog-store.js';

test('GET /healthz needs no token and answers 200 while the stores answer', async () => {
  const h = await harness();
  const r = await h.get('/healthz');
  assert.equal(r.statusCode, 200);
  assert.deepEqual(r.json(), { status: 'ok', checks: { control: 'up', events: 'up' } });
  await h.close();
});

test('GET /healthz answers 503 when the control plane does not answer', async () => {
  let down = false;
  const h = await harness({
    catalog: (c) =>
      Object.create(c, {
        ping: {
          value: async () => {
            if (down) throw new Error('disk gone');
          },
        },
      }) as CatalogStore,
  });
  down = true;
  const r = await h.get('/healthz');
  assert.equal(r.statusCode, 503);
  assert.deepEqual(r.json(), { status: 'unavailable', checks: { control: 'down', events: 'up' } });
  assert.equal(r.headers['retry-after'], '5');
  assert.equal((await h.get('/healthz', { method: 'HEAD' })).statusCode, 503);
  await h.close();
});

test('GET /openapi.json is an OpenAPI 3.1 document of every /v1 route, its parameters and error codes', async () => {
  const h = await harness();
  const r = await h.app.inject({ url: '/openapi.json' });
  assert.equal(r.statusCode, 200);
  const doc = r.json();
  assert.equal(doc.openapi, '3.1.0');
  for (const path of ['/v1/me', '/v1/sites', '/v1/tenants', '/v1/goals', '/v1/usage/current', '/v1/usage/history']) {
    assert.ok(doc.paths[path]?.get, path);
    assert.deepEqual(Object.keys(doc.paths[path]), ['get'], `${path}: GET only`);
  }
  assert.deepEqual(Object.keys(doc.paths['/healthz']).sort(), ['get', 'head']);
  assert.equal(doc.paths['/openapi.json'], undefined);
  assert.equal(doc.paths['/docs'], undefined);
  const params = (p: string) => (doc.paths[p].get.parameters ?? []).map((x: any) => `${x.in}:${x.name}:${x.required ?? false}`);
  assert.deepEqual(params('/v1/goals'), ['query:site_id:true']);
  assert.deepEqual(params('/v1/usage/history').sort(), ['query:from:false', 'query:to:false']);
  assert.deepEqual(doc.paths['/v1/me'].get.security, [{ bearerAuth: [] }]);
  assert.deepEqual(doc.paths['/healthz'].get.security, [], 'stated: no token');
  const codes = doc.components.schemas.ErrorCode.enum;
  assert.deepEqual([...codes].sort(), Object.keys(ERROR_CATALOG).sort());
  assert.ok(doc.paths['/v1/usage/current'].get.responses['429'], '429 documented');
  await h.close();
});

/** Every operation of the document: [path, method, operation]. */
const operations = (doc: any): [string, string, any][] =>
  Object.entries<any>(doc.paths).flatMap(([p, item]) => Object.entries<any>(item).map(([m, op]) => [p, m, op] as [string, string, any]));

test('the document a generated client needs: operationIds, servers, licence, tags, one error envelope, headers, 404 and 405, examples', async () => {
  const h = await harness();
  const doc = h.checker.doc;
  const ops = operations(doc);
  assert.equal(ops.length, 18, '13 /v1 operations, POST /api/v2/query and /api/v2/funnel, GET /api/v2/funnels, and GET and HEAD /healthz');
  const ids = ops.map(([, , op]) => op.operationId);
  assert.ok(
    ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id)),
    ids.join(),
  );
  assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
  assert.ok(doc.servers?.length >= 1 && doc.servers.every((s: any) => typeof s.url === 'string'));
  assert.ok(doc.info.license?.name && (doc.info.license.identifier || doc.info.license.url), 'licence named, with an identifier or url');
  const tagNames = new Set(doc.tags.map((t: any) => t.name));
  for (const [p, m, op] of ops) for (const t of op.tags) assert.ok(tagNames.has(t), `${m} ${p}: tag ${t} is declared`);

  // One response component per catalog status, each the shared envelope narrowed to its codes.
  const statuses = [...new Set(Object.values(ERROR_CATALOG).map((e) => e.status))];
  for (const status of statuses) {
    const ref = `#/components/responses/${
      Object.entries<any>(doc.components.responses).find(([, r]) =>
        r.content['application/json'].schema.allOf[1].properties.error.properties.code.enum.every(
          (c: ErrorCode) => ERROR_CATALOG[c].status === status,
        ),
      )?.[0]
    }`;
    const response = resolvePointer(doc, ref);
    const schema = response.content['application/json'].schema;
    assert.deepEqual(schema.allOf[0], { $ref: '#/components/schemas/ErrorEnvelope' }, `${status} refers to the shared envelope`);
    const expected = (Object.keys(ERROR_CATALOG) as ErrorCode[]).filter((c) => ERROR_CATALOG[c].status === status);
    assert.deepEqual(schema.allOf[1].properties.error.properties.code.enum, expected, `${status}: exactly the codes of that status`);
    assert.deepEqual(Object.keys(response.content['application/json'].examples), expected, `${status}: an example per code`);
    assert.equal(response.headers['X-Request-Id'].required, true);
  }
  const limited = resolvePointer(doc, '#/components/responses/RateLimited').headers;
  for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After'])
    assert.equal(limited[name]?.required, true, `429 ${name}`);
  assert.equal(resolvePointer(doc, '#/components/responses/Unavailable').headers['Retry-After']?.required, true, '503 Retry-After');
  assert.equal(resolvePointer(doc, '#/components/responses/MethodNotAllowed').headers.Allow?.required, true, '405 Allow');

  for (const [p, m, op] of ops) {
    const where = `${m.toUpperCase()} ${p}`;
    for (const [status, response] of Object.entries<any>(op.responses)) {
      if (Number(status) >= 400 && p !== '/healthz')
        assert.match(response.$ref ?? '', /^#\/components\/responses\//, `${where} ${status} is a shared error response`);
    }
    assert.ok(op.responses['404'] && op.responses['405'], `${where}: 404 and 405 documented`);
    const ok = op.responses['200'];
    assert.equal(ok.headers['X-Request-Id'].required, true, `${where}: X-Request-Id`);
    if (op.security.length) assert.ok(ok.headers['X-RateLimit-Limit'], `${where}: X-RateLimit-* on 200`);
    if (m === 'get' || m === 'post') {
      const media = ok.content['application/json'];
      assert.ok(media.example !== undefined, `${where}: an example for 200`);
      const validate = openApiValidator(doc)(`#/paths/${p.replace(/\//g, '~1')}/${m}/responses/200/content/application~1json/schema`);
      assert.ok(validate(media.example), `${where}: the example matches its schema: ${JSON.stringify(validate.errors)}`);
    }
  }
  await h.close();
});

test('the description carries the error catalog, retry guidance and the metering table', async () => {
  const h = await harness();
  const text: string = h.checker.doc.info.description;
  for (const code of Object.keys(ERROR_CATALOG))
    assert.match(text, new RegExp(`\\| \`${code}\` \\| ${ERROR_CATALOG[code as ErrorCode].status} \\|`), code);
  assert.match(text, /## Retry guidance/);
  assert.match(text, /429 RATE_LIMITED\*\*: wait until `X-RateLimit-Reset`/);
  assert.match(text, /Never retry 401, 402, 403 or 422/);
  assert.match(text, /\| Timeseries, pageviews, 7 days, day \| 4 \|/);
  assert.match(text, /\| Breakdown by page, pageviews, 90 days, limit 500 \| 240 \|/);
  assert.match(text, /\| \/v1\/reports\/overview \| 10 \|/);
  await h.close();
});
