// FOOTFALL_TRUST_PROXY and FOOTFALL_COLLECT_RATE_LIMIT: parsed once, bad values named at start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../../src/config/config.js';

const load = (env: Record<string, string>) => loadConfig({}, env);

test('FOOTFALL_TRUST_PROXY takes what Fastify trustProxy takes: true/false, a hop count, addresses and CIDR ranges', () => {
  assert.equal(load({}).trustProxy, false);
  assert.equal(load({ FOOTFALL_TRUST_PROXY: 'true' }).trustProxy, true);
  assert.equal(load({ FOOTFALL_TRUST_PROXY: 'FALSE' }).trustProxy, false);
  assert.equal(load({ FOOTFALL_TRUST_PROXY: '2' }).trustProxy, 2);
  assert.deepEqual(load({ FOOTFALL_TRUST_PROXY: '10.0.0.0/8, 192.168.1.7 ,::1,fd00::/8,loopback' }).trustProxy, [
    '10.0.0.0/8',
    '192.168.1.7',
    '::1',
    'fd00::/8',
    'loopback',
  ]);
  assert.deepEqual(loadConfig({ trustProxy: '127.0.0.1' }, {}).trustProxy, ['127.0.0.1']);
  for (const bad of ['yes', '10.0.0.0/33', '10.0.0.0/8/1', 'proxy.internal', '::1/129', ' , ']) {
    assert.throws(
      () => load({ FOOTFALL_TRUST_PROXY: bad }),
      (err: unknown) => err instanceof ConfigError && /FOOTFALL_TRUST_PROXY/.test(err.message),
      bad,
    );
  }
});

test('FOOTFALL_COLLECT_RATE_LIMIT: events per minute per address, 600 by default, 0 switches it off', () => {
  assert.equal(load({}).collectRateLimit, 600);
  assert.equal(load({ FOOTFALL_COLLECT_RATE_LIMIT: '0' }).collectRateLimit, 0);
  assert.equal(load({ FOOTFALL_COLLECT_RATE_LIMIT: '12000' }).collectRateLimit, 12000);
  for (const bad of ['-1', '1.5', 'lots']) assert.throws(() => load({ FOOTFALL_COLLECT_RATE_LIMIT: bad }), /FOOTFALL_COLLECT_RATE_LIMIT/);
});
