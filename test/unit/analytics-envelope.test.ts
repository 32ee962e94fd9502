import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MemoryResponseCache } from '../../src/cache/memory-response-cache.js';
import { ApiError } from '../../src/domain/errors.js';
import { MAX_RESPONSE_BYTES, checkResponseBudget } from '../../src/services/analytics/budget.js';
import { usageMeta } from '../../src/services/metering.js';
import {
  envelopeBody,
  envelopeBytes,
  metaUpperBound,
  serializeEnvelopeData,
  serializeMeta,
} from '../../src/services/analytics/report-envelope.js';
import { stableJson } from '../../src/services/analytics/serve-analytics.js';
import { dataFreshness, type Surface } from '../../src/services/analytics/surface.js';
import { runs } from '../helpers/property-runs.js';

const surface: Surface = {
  mode: 'strict',
  dataEnvelope: 'strict',
  dataFreshness: { status: 'fresh', asOf: '2025-06-15T11:00:00.000Z', lagMinutes: 60, cached: true, notes: ['ü ✓'] },
  compareWindow: { enabled: false, mode: null, compareStart: null, compareEnd: null },
  exportCapability: { csv: true, level: 'limited', dataEnvelope: 'strict', notes: [] },
};
const availability = {
  route: 'content',
  classification: 'strict_safe',
  currentProfile: 'strict',
  collectionProfileEffectiveAt: null,
  current: {
    status: 'available',
    reason: 'strict_safe_route',
    requestedStart: 'a',
    requestedEnd: 'b',
    compatibleStart: 'a',
    compatibleEnd: 'b',
  },
  compare: null,
  sections: [],
} as const;

test('the budget is 5 MiB, inclusive; over it the error carries the spec details', () => {
  assert.equal(MAX_RESPONSE_BYTES, 5_242_880);
  checkResponseBudget(MAX_RESPONSE_BYTES, { include: 'full', rangeDays: 90 });
  assert.throws(
    () => checkResponseBudget(MAX_RESPONSE_BYTES + 1, { include: 'summary', rangeDays: 365 }),
    (e: unknown) =>
      e instanceof ApiError &&
      e.code === 'REPORT_RESPONSE_TOO_LARGE' &&
      e.status === 422 &&
      JSON.stringify(e.details) ===
        JSON.stringify({ include: 'summary', range_days: 365, measured_bytes: 5_242_881, max_bytes: 5_242_880 }),
  );
});

test('the envelope body is the data, then meta, as one JSON object in the spec member order', () => {
  const data = serializeEnvelopeData({
    current: { x: 'é' },
    compare: null,
    range: { start: 's', end: 'e', compare_start: null, compare_end: null },
    availability: availability as any,
  });
  const meta = { request_id: 'r1', ...usageMeta(4, 10, { included: 5, hardCap: 20 }), surface };
  const metaJson = serializeMeta(meta, JSON.stringify(surface));
  const body = envelopeBody(data, metaJson).toString('utf8');
  const parsed = JSON.parse(body);
  assert.deepEqual(Object.keys(parsed), ['current', 'compare', 'range', 'availability', 'meta']);
  assert.deepEqual(parsed.meta, meta);
  assert.equal(envelopeBytes(data, metaJson), Buffer.byteLength(body, 'utf8'));
});

test('serializeMeta writes exactly what JSON.stringify writes for the meta', () => {
  fc.assert(
    fc.property(
      fc.string({ maxLength: 40 }),
      fc.integer({ min: 0, max: 10_000 }),
      fc.integer({ min: 0, max: 5_000_000 }),
      fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      (requestId, units, included, hardCap, share) => {
        const used = Math.min(hardCap, Math.floor(hardCap * share));
        const meta = { request_id: requestId, ...usageMeta(units, used, { included, hardCap }) };
        assert.equal(serializeMeta(meta, JSON.stringify(surface)), JSON.stringify({ ...meta, surface }));
      },
    ),
    { numRuns: runs(2_000) },
  );
});

test('the meta bound used before commit is never shorter than the meta sent after it', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 10_000 }),
      fc.integer({ min: 0, max: 5_000_000 }),
      fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      (units, included, hardCap, share) => {
        const used = Math.min(hardCap, Math.floor(hardCap * share));
        const real = JSON.stringify({ request_id: 'req_x', ...usageMeta(units, used, { included, hardCap }), surface });
        const bound = metaUpperBound({ requestId: 'req_x', units, included, hardCap, surfaceJson: JSON.stringify(surface) });
        return Buffer.byteLength(bound) >= Buffer.byteLength(real);
      },
    ),
  );
});

test('freshness: fresh up to 60 minutes, delayed up to 24 hours, stale beyond, unknown without data', () => {
  const now = Date.parse('2025-06-15T12:00:00Z');
  const at = (min: number) => dataFreshness(now - min * 60_000, now, false);
  assert.equal(at(0).status, 'fresh');
  assert.equal(at(60).status, 'fresh');
  assert.equal(at(61).status, 'delayed');
  assert.equal(at(1440).status, 'delayed');
  assert.equal(at(1441).status, 'stale');
  assert.ok(at(1441).notes.length > 0);
  assert.deepEqual(dataFreshness(now + 120_000, now, false), {
    status: 'fresh',
    asOf: '2025-06-15T12:02:00.000Z',
    lagMinutes: 0,
    cached: false,
    notes: [],
  });
  const none = dataFreshness(null, now, true);
  assert.equal(none.status, 'unknown');
  assert.equal(none.asOf, null);
  assert.equal(none.lagMinutes, null);
  assert.equal(none.cached, true);
});

test('cache keys do not depend on the order parameters were written in', () => {
  assert.equal(stableJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: null } }), stableJson({ a: { c: null, d: [2, { y: 2, z: 1 }] }, b: 1 }));
  assert.notEqual(stableJson({ a: [1, 2] }), stableJson({ a: [2, 1] }));
});

test('the memory cache evicts least recently used entries to stay within its byte budget', async () => {
  const body = (n: number) => ({ body: Buffer.alloc(n, 'x') });
  const c = new MemoryResponseCache(1000);
  for (const k of ['a', 'b', 'c', 'd']) await c.set(k, body(240));
  assert.equal(c.stats().bytes, 4 * 242, 'bodies plus keys');
  assert.ok(await c.get('a'), 'a is now the most recently used');
  await c.set('e', body(240));
  assert.equal(await c.get('b'), undefined, 'b was the least recently used');
  for (const k of ['a', 'c', 'd', 'e']) assert.ok(await c.get(k), k);
  assert.ok(c.stats().bytes <= 1000);
  await c.set('huge', body(300));
  assert.equal(await c.get('huge'), undefined, 'an entry over a quarter of the budget is not kept');
  await c.set('a', body(10));
  assert.equal((await c.get('a'))!.body.length, 10, 'a key is replaced, not duplicated');
  const s = c.stats();
  assert.equal(s.entries, 4);
  assert.equal(s.bytes, 12 + 3 * 242);
  assert.ok(s.hits >= 6 && s.misses >= 2);
});
