// The import's fast paths and memos (docs/decisions/ingest.md "Performance") agree with the
// general rules on random inputs: same results, whatever the input and the order of calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseIsoInstant, parseIsoInstantGeneral } from '../../../src/ingest/parse/timestamp.js';
import {
  hasClickId,
  pathCanon,
  percentDecode,
  queryFacts,
  rawPathOf,
  rawPathOfGeneral,
  referrerHost,
  utmOf,
} from '../../../src/ingest/parse/url.js';
import { channelOf, isSearchHost, isSocialHost } from '../../../src/ingest/parse/channel.js';
import { parseUserAgent } from '../../../src/ingest/parse/user-agent.js';
import { trafficClassOf } from '../../../src/ingest/parse/agent-rules.js';
import { BoundedMemo } from '../../../src/ingest/parse/memo.js';
import { validateEventLine } from '../../../src/ingest/parse/validate.js';
import { normalizeEvent, type NormalizeSite } from '../../../src/ingest/parse/normalize.js';
import { eventIdentity } from '../../../src/ingest/parse/identity.js';
import { LineProcessor } from '../../../src/ingest/pipeline/line-processor.js';
import type { EventRow } from '../../../src/ports/event-store.js';
import { runs } from '../../helpers/property-runs.js';

const RUNS = { numRuns: runs(2000) };
const pad = (n: number, w: number) => String(n).padStart(w, '0');
/** Strings made of the given pieces: dense in the shapes the fast paths branch on. */
const joined = (pieces: string[], maxLength = 12) => fc.array(fc.constantFrom(...pieces), { maxLength }).map((a) => a.join(''));

const instantArb = fc.oneof(
  fc
    .record({
      y: fc.integer({ min: 1960, max: 2400 }),
      mo: fc.integer({ min: 0, max: 13 }),
      d: fc.integer({ min: 0, max: 32 }),
      h: fc.integer({ min: 0, max: 25 }),
      mi: fc.integer({ min: 0, max: 61 }),
      s: fc.integer({ min: 0, max: 61 }),
      sep: fc.constantFrom('.', ',', ''),
      frac: fc.stringMatching(/^\d{0,11}$/),
      zone: fc.constantFrom('Z', 'Z', 'z', '', '+02:00', '-0530', '+25:00', ' Z', 'ZZ'),
    })
    .map((p) => `${pad(p.y, 4)}-${pad(p.mo, 2)}-${pad(p.d, 2)}T${pad(p.h, 2)}:${pad(p.mi, 2)}:${pad(p.s, 2)}${p.sep}${p.frac}${p.zone}`),
  // One character of a valid instant replaced: separators, digits and the zone in the wrong place.
  fc.tuple(fc.integer({ min: 0, max: 23 }), fc.constantFrom(...'0123456789-T:.,Z+ a\u0661')).map(([i, c]) => {
    const s = '2024-02-29T23:59:59.999Z';
    return s.slice(0, i) + c + s.slice(i + 1);
  }),
  fc.string({ maxLength: 32 }),
);

test('parseIsoInstant (fast path) agrees with the general parser', () => {
  fc.assert(
    fc.property(instantArb, (s) => assert.equal(parseIsoInstant(s), parseIsoInstantGeneral(s), s)),
    RUNS,
  );
  for (const s of ['2024-05-01T12:00:00Z', '2024-05-01T12:00:00.5Z', '2024-05-01T12:00:00.123456789Z']) {
    assert.notEqual(parseIsoInstant(s), null, s);
  }
});

const urlArb = fc
  .tuple(
    fc.constantFrom('', 'http://', 'https://', 'HTTPS://', 'Http://', 'ftp://', 'h://', 'http:/', 'http:', 'https', 'h', '//', '/'),
    joined(['bench.example', 'a', ':8080', '@', '?', '#', '/', '.', ' ']),
    joined(['/', 'p', 'é', '%C3%A9', '%2F', '%FF', '%', '%4', '%00', '?', '#', '&', '=', '\\', '..', ' ', '+']),
  )
  .map(([a, b, c]) => a + b + c);

test('rawPathOf and pathCanon (fast paths, one-line memo) agree with the general rule', () => {
  fc.assert(
    fc.property(urlArb, urlArb, (u, other) => {
      assert.equal(rawPathOf(u), rawPathOfGeneral(u), u);
      const expected = percentDecode(rawPathOfGeneral(u));
      assert.equal(pathCanon(u), expected, u);
      assert.equal(pathCanon(u), expected, u); // the memoized second call
      assert.equal(pathCanon(other), percentDecode(rawPathOfGeneral(other)), other);
      assert.equal(pathCanon(u), expected, u);
    }),
    RUNS,
  );
});

const queryArb = fc
  .tuple(
    fc.constantFrom('https://bench.example/p', '/p', '/p#x', 'https://bench.example'),
    joined(
      ['?', 'utm_source', 'utm_medium', 'utm_campaign', 'gclid', 'msclkid', 'GCLID', '=', '&', '+', ' ', '%20', 'x', 'cpc', '#', '%C3%A9'],
      16,
    ),
  )
  .map(([a, b]) => a + b);

test('queryFacts (memoized, one parse) agrees with utmOf and hasClickId', () => {
  fc.assert(
    fc.property(queryArb, (u) => {
      const expected = { ...utmOf(u), has_click_id: hasClickId(u) };
      assert.deepEqual({ ...queryFacts(u) }, expected, u);
      assert.deepEqual({ ...queryFacts(u) }, expected, u);
    }),
    RUNS,
  );
  assert.ok(Object.isFrozen(queryFacts('/p?utm_source=x')));
});

/** referrerHost as it was before the memo: every call parses. */
function referrerHostReference(referrer: string | null, siteHostnames: readonly string[]): string | null {
  const bare = (h: string) => {
    let x = h.toLowerCase().replace(/\.$/, '');
    if (x.startsWith('www.')) x = x.slice(4);
    return x === '' ? null : x;
  };
  const parse = (s: string) => {
    try {
      return new URL(s);
    } catch {
      return null;
    }
  };
  if (referrer == null) return null;
  const trimmed = referrer.trim();
  if (trimmed === '' || trimmed === '-') return null;
  const url = parse(trimmed);
  if (url === null) return null;
  const host = bare(url.hostname);
  if (host === null) return null;
  for (const own of siteHostnames) {
    const o = parse(`http://${own.trim()}`);
    if (o !== null && bare(o.hostname) === host) return null;
  }
  return host;
}

test('referrerHost (memoized) agrees with parsing every time, for any site hostnames', () => {
  const referrerArb = fc
    .tuple(
      fc.constantFrom('', ' ', '-', 'https://', 'http://', 'HTTPS://www.', 'android-app://', 'ftp://', 'x'),
      joined(
        ['www.', 'bench.example', 'Bench.Example', 'google.co.uk', 't.co', '.', ':8080', '/', '?q=1', ' ', '[::1]', 'xn--caf-dma.fr'],
        6,
      ),
    )
    .map(([a, b]) => a + b);
  const hostsArb = fc.array(
    fc.constantFrom('bench.example', 'www.bench.example', 'Bench.Example:8080', 'google.co.uk.', ' t.co', 'bad host'),
    { maxLength: 3 },
  );
  fc.assert(
    fc.property(referrerArb, hostsArb, (r, hosts) => {
      const expected = referrerHostReference(r, hosts);
      assert.equal(referrerHost(r, hosts), expected, r);
      assert.equal(referrerHost(r, hosts), expected, r);
    }),
    RUNS,
  );
});

test('channelOf (memoized host classes) follows isSearchHost and isSocialHost', () => {
  const hostArb = joined(['google', 'bing', 'x', 't', 'co', 'com', 'uk', 'de', 'news', 'ycombinator', 'notx', '.', 'Google', 'www'], 6);
  fc.assert(
    fc.property(hostArb, fc.constantFrom(null, 'organic', 'social'), (host, medium) => {
      const inputs = { utm_medium: medium, utm_source: null, has_click_id: false, referrer_host: host };
      const h = host.trim() === '' ? null : host.trim().toLowerCase();
      const expected =
        (h !== null && isSearchHost(h)) || medium === 'organic'
          ? 'Search'
          : (h !== null && isSocialHost(h)) || medium === 'social'
            ? 'Social'
            : h !== null
              ? 'Referral'
              : medium !== null
                ? 'Other'
                : 'Direct';
      assert.equal(channelOf(inputs), expected, host);
      assert.equal(channelOf(inputs), expected, host);
    }),
    RUNS,
  );
});

test('parseUserAgent and trafficClassOf give the same, frozen answer on repeated calls', () => {
  const agents = [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
    'Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)',
    'curl/8.0',
    '',
    ' - ',
  ];
  for (const a of agents) {
    const first = parseUserAgent(a);
    assert.ok(Object.isFrozen(first));
    assert.deepEqual(parseUserAgent(a), first);
    assert.equal(trafficClassOf(a), first.traffic_class);
  }
});

test('BoundedMemo keeps at most two generations and recomputes what it dropped', () => {
  const calls: string[] = [];
  const memo = new BoundedMemo(
    (k: string) => {
      calls.push(k);
      return k.toUpperCase();
    },
    2,
    5,
  );
  assert.equal(memo.get('a'), 'A');
  assert.equal(memo.get('a'), 'A');
  assert.equal(memo.get('b'), 'B');
  assert.equal(memo.get('c'), 'C'); // a and b move to the older generation
  assert.equal(memo.get('a'), 'A'); // found there, moved back
  assert.equal(memo.get('d'), 'D'); // b is dropped
  assert.equal(memo.get('e'), 'E');
  assert.equal(memo.get('b'), 'B');
  assert.equal(memo.get('long key'), 'LONG KEY');
  assert.equal(memo.get('long key'), 'LONG KEY'); // never kept
  assert.deepEqual(calls, ['a', 'b', 'c', 'd', 'e', 'b', 'long key', 'long key']);
});

test('the line processor with tiny memos stores exactly what validate, normalizeEvent and eventIdentity give', async () => {
  const nowMs = Date.parse('2025-03-10T12:00:00Z');
  const site: NormalizeSite = { id: 'site_a', hostnames: ['bench.example'], collectionProfile: 'extended', profileEffectiveAt: null };
  const agents = [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    'curl/8.0',
    'Mozilla/5.0 (compatible; GPTBot/1.2)',
  ];
  const lineArb = fc.record({
    ts: fc.constantFrom('2025-03-08T23:59:59.999Z', '2025-03-09T00:00:00Z', '2025-03-09T10:00:00+02:00'),
    ip: fc.constantFrom('198.51.100.1', ' 198.51.100.2', '2001:db8::1'),
    user_agent: fc.constantFrom(...agents),
    visitor_key: fc.constantFrom(undefined, 'k1'),
    device_type: fc.constantFrom(undefined, 'tablet'),
    url: fc.constantFrom('https://bench.example/a?utm_medium=cpc', '/b%C3%A9?gclid=1', 'https://bench.example'),
    referrer: fc.constantFrom(undefined, 'https://www.google.de/', 'https://bench.example/x'),
  });
  const secret = 'test-secret';
  await fc.assert(
    fc.asyncProperty(fc.array(lineArb, { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 4 }), async (objs, cacheLimit) => {
      const lines = objs.map((o) => JSON.stringify({ site_id: 'site_a', type: 'pageview', ...o }));
      const p = new LineProcessor({ format: { kind: 'events' }, nowMs, secret, cacheLimit }, { site: () => site, tenantSite: () => null });
      const got: EventRow[] = [];
      const tally = await p.process(lines, (r) => got.push(r), 100);
      assert.equal(tally.rejected, 0);
      const expected = lines.map((l) => {
        const v = validateEventLine(JSON.parse(l), { nowMs });
        assert.ok(v.ok);
        const e = normalizeEvent(v.event, site, secret)!;
        return { ...e, event_id: eventIdentity(e, 1) };
      });
      assert.deepEqual(
        got.map((r) => ({ ...r })),
        expected,
      );
    }),
    { numRuns: runs(200) },
  );
});
