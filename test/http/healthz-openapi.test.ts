import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from './helpers/harness.js';
import { ERROR_CATALOG } from '../../src/domain/errors.js';
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
        ping: { value: async () => { if (down) throw new Error('disk gone'); } },
      }) as CatalogStore,
  });
  down = true;
  const r = await h.get('/healthz');
  assert.equal(r.statusCode, 503);
  assert.deepEqual(r.json(), { status: 'unavailable', checks: { control: 'down', events: 'up' } });
  await h.close();
});

test('GET /openapi.json is an OpenAPI 3.1 document of every /v1 route, its parameters and error codes', async () => {
  const h = await harness();
  const r = await h.app.inject({ url: '/openapi.json' });
  assert.equal(r.statusCode, 200);
  const doc = r.json();
  assert.equal(doc.openapi, '3.1.0');
  for (const path of ['/v1/me', '/v1/sites', '/v1/tenants', '/v1/goals', '/v1/usage/current', '/v1/usage/history', '/healthz']) {
    assert.ok(doc.paths[path]?.get, path);
    assert.deepEqual(Object.keys(doc.paths[path]), ['get'], `${path}: GET only`);
  }
  assert.equal(doc.paths['/openapi.json'], undefined);
  const params = (p: string) => (doc.paths[p].get.parameters ?? []).map((x: any) => `${x.in}:${x.name}:${x.required ?? false}`);
  assert.deepEqual(params('/v1/goals'), ['query:site_id:true']);
  assert.deepEqual(params('/v1/usage/history').sort(), ['query:from:false', 'query:to:false']);
  assert.deepEqual(doc.paths['/v1/me'].get.security, [{ bearerAuth: [] }]);
  const codes = doc.components.schemas.ErrorEnvelope.properties.error.properties.code.enum;
  assert.deepEqual([...codes].sort(), Object.keys(ERROR_CATALOG).sort());
  assert.ok(doc.paths['/v1/usage/current'].get.responses['429'], '429 documented');
  await h.close();
});
