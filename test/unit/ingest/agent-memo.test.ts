// One AgentMemo shared by successive LineProcessors (live collection renews its processor to see site
// changes): a renewed processor reuses what the memo learned, and never serves a visitor key
// computed under another secret.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import fc from 'fast-check';
import { AgentMemo } from '../../../src/ingest/pipeline/agent-memo.js';
import { LineProcessor } from '../../../src/ingest/pipeline/line-processor.js';
import { validateEventLine } from '../../../src/ingest/parse/validate.js';
import { normalizeEvent, type NormalizeSite } from '../../../src/ingest/parse/normalize.js';
import { eventIdentity } from '../../../src/ingest/parse/identity.js';
import { dailyVisitorKey } from '../../../src/ingest/parse/visitor-key.js';
import type { EventRow } from '../../../src/ports/event-store.js';
import { runs } from '../../helpers/property-runs.js';

const nowMs = Date.parse('2025-03-10T12:00:00Z');
const site: NormalizeSite = { id: 'site_a', hostnames: ['memo.example'], collectionProfile: 'extended', profileEffectiveAt: null };
const catalog = { site: () => site, tenantSite: () => null };
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

function processor(secret: string, memo?: AgentMemo, cacheLimit?: number): LineProcessor {
  return new LineProcessor({ format: { kind: 'events' }, nowMs, secret, cacheLimit }, catalog, null, memo);
}

function line(ip: string, ua = UA, ts = '2025-03-09T10:00:00Z'): string {
  return JSON.stringify({ site_id: 'site_a', type: 'pageview', ts, ip, user_agent: ua, url: 'https://memo.example/a' });
}

async function rows(p: LineProcessor, lines: string[]): Promise<EventRow[]> {
  const got: EventRow[] = [];
  const tally = await p.process(lines, (r) => got.push(r), 10);
  assert.equal(tally.rejected, 0);
  return got;
}

/** Counts node:crypto's createHmac calls made while `body` runs (the memo's and visitor-key.ts's alike). */
async function hmacsDuring(body: () => Promise<void>): Promise<number> {
  const spy = mock.method(crypto, 'createHmac');
  syncBuiltinESMExports();
  try {
    await body();
    return spy.mock.callCount();
  } finally {
    spy.mock.restore();
    syncBuiltinESMExports();
  }
}

test('a processor handed the memo of an earlier one computes no visitor key that memo already holds', async () => {
  const memo = new AgentMemo();
  const lines = [line('198.51.100.1'), line('198.51.100.2')];
  let first: EventRow[] = [];
  // the day's salt, then one key per visitor
  assert.equal(await hmacsDuring(async () => void (first = await rows(processor('s1', memo), lines))), 3);
  let again: EventRow[] = [];
  assert.equal(await hmacsDuring(async () => void (again = await rows(processor('s1', memo), lines))), 0);
  assert.deepEqual(again, first);
  // a new visitor on the renewed processor costs its key only (the salt is remembered too)
  assert.equal(await hmacsDuring(async () => void (await rows(processor('s1', memo), [line('198.51.100.3')]))), 1);
  // without the memo, a new processor starts from nothing
  assert.equal(await hmacsDuring(async () => void (await rows(processor('s1'), lines))), 3);
});

test('a memo handed a processor of another secret serves keys of that secret only, in either order', async () => {
  const memo = new AgentMemo();
  const ip = '198.51.100.1';
  const keyUnder = (secret: string) => dailyVisitorKey(secret, 'site_a', '2025-03-09', ip, UA);
  assert.notEqual(keyUnder('s1'), keyUnder('s2'));
  const p1 = processor('s1', memo);
  const p2 = processor('s2', memo);
  assert.equal((await rows(p1, [line(ip)]))[0].visitor_key, keyUnder('s1'));
  let under2: EventRow[] = [];
  // recomputed (salt and key), not served from what s1 left
  assert.equal(await hmacsDuring(async () => void (under2 = await rows(p2, [line(ip)]))), 2);
  assert.equal(under2[0].visitor_key, keyUnder('s2'));
  // the older processor, still in use, gets its own secret's key back
  assert.equal((await rows(p1, [line(ip)]))[0].visitor_key, keyUnder('s1'));
  assert.equal((await rows(p2, [line(ip)]))[0].visitor_key, keyUnder('s2'));
});

test('processors of two secrets sharing one tiny memo store exactly what validate, normalizeEvent and eventIdentity give', async () => {
  const agents = [UA, 'curl/8.0', 'Mozilla/5.0 (compatible; GPTBot/1.2)'];
  const stepArb = fc.record({
    secret: fc.constantFrom('s1', 's2'),
    lines: fc.array(
      fc.record({
        ts: fc.constantFrom('2025-03-08T23:59:59.999Z', '2025-03-09T00:00:00Z', '2025-03-09T10:00:00+02:00'),
        ip: fc.constantFrom('198.51.100.1', ' 198.51.100.2', '2001:db8::1'),
        ua: fc.constantFrom(...agents),
      }),
      { minLength: 1, maxLength: 6 },
    ),
  });
  await fc.assert(
    fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 4 }), async (steps, cacheLimit) => {
      const memo = new AgentMemo(cacheLimit);
      const bySecret = { s1: processor('s1', memo), s2: processor('s2', memo) };
      for (const step of steps) {
        const lines = step.lines.map((l) => line(l.ip, l.ua, l.ts));
        const got = await rows(bySecret[step.secret as 's1' | 's2'], lines);
        const expected = lines.map((l) => {
          const v = validateEventLine(JSON.parse(l), { nowMs });
          assert.ok(v.ok);
          const e = normalizeEvent(v.event, site, step.secret)!;
          return { ...e, event_id: eventIdentity(e, 1) };
        });
        assert.deepEqual(
          got.map((r) => ({ ...r })),
          expected,
        );
      }
    }),
    { numRuns: runs(200) },
  );
});
