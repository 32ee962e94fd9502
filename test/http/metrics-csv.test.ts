// Accept: text/csv on /v1/metrics/timeseries and /v1/metrics/breakdown: RFC 4180 (read back here by a strict
// parser), the JSON's own rows and values, quoting of keys with commas, quotes, CR, LF and non-ASCII
// text, tenant columns, the period column with compare, metering and the budget as for the JSON; errors,
// HEAD and other methods as before.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { ApiError } from '../../src/domain/errors.js';
import { authorizeRoute } from '../../src/services/authorize.js';
import { personCaller } from '../../src/services/caller.js';
import { MAX_RESPONSE_BYTES } from '../../src/services/analytics/budget.js';
import { metricsHarness, pv, type MetricsHarness } from './metrics-harness.js';

const BROWSERS = ['Fire,fox', 'Say "hi"', 'Line\nBreak', 'Carriage\rReturn', 'Crème brûlée ☃ 日本', '"', ',', 'Plain'];
const PAGES = ['/a,b', '/q"uote', '/café', '/'];
const TENANT_NAME = 'Acme, "Inc" Ünited';
const FROM = '2025-06-09';
const TO = '2025-06-14';
const CSV = { accept: 'text/csv' };

let h: MetricsHarness;
let site: string;
let tenant: string;

before(async () => {
  h = await metricsHarness();
  site = await h.site();
  tenant = await h.tenant(site, 'acme', TENANT_NAME);
  const lines: Record<string, unknown>[] = [];
  BROWSERS.forEach((browser, b) => {
    for (let n = 0; n <= b; n++) {
      const ts = `2025-06-${String(10 + (n % 4)).padStart(2, '0')}T${String(8 + n).padStart(2, '0')}:00:00Z`;
      lines.push(
        pv(site, ts, PAGES[(b + n) % PAGES.length], `k${b}-${n}`, { browser_family: browser, ...(n % 2 ? { tenant_id: tenant } : {}) }),
      );
    }
  });
  // a session that bounces beside ones that do not: fractional rates
  lines.push(pv(site, '2025-06-11T20:00:00Z', '/', 'solo'), pv(site, '2025-06-11T20:05:00Z', '/café', 'solo'));
  lines.push(pv(site, '2025-06-03T10:00:00Z', '/', 'earlier'));
  await h.importEvents(lines);
});
after(async () => h?.close());

/** RFC 4180 records; fails on anything the RFC does not allow (bare quotes, LF or CR outside quotes, no final CRLF). */
function parseCsv(text: string): string[][] {
  assert.ok(text.endsWith('\r\n'), 'every record, the last one too, ends with CRLF');
  const records: string[][] = [];
  let i = 0;
  while (i < text.length) {
    const record: string[] = [];
    for (;;) {
      let field = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          const q = text.indexOf('"', i);
          assert.ok(q >= 0, 'unterminated quoted field');
          field += text.slice(i, q);
          i = q + 1;
          if (text[i] !== '"') break;
          field += '"';
          i++;
        }
      } else {
        while (i < text.length && text[i] !== ',' && text[i] !== '\r' && text[i] !== '\n') {
          assert.notEqual(text[i], '"', `a quote inside an unquoted field, record ${records.length + 1}`);
          field += text[i++];
        }
      }
      record.push(field);
      if (text[i] === ',') {
        i++;
        continue;
      }
      assert.equal(text.slice(i, i + 2), '\r\n', `record ${records.length + 1} ends with CRLF`);
      i += 2;
      break;
    }
    records.push(record);
  }
  return records;
}

/** A JSON value as its CSV field: null and absent members are empty, numbers as JSON writes them. */
const field = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'number' ? JSON.stringify(v) : String(v));

async function both(path: string, query: Record<string, string | number>, accept = 'text/csv') {
  const json = await h.call(path, query);
  assert.equal(json.statusCode, 200, json.body);
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  const csv = await h.get(`${path}?${qs}`, { token: h.secret, headers: { accept } });
  assert.equal(csv.statusCode, 200, csv.body);
  return { json: json.json(), csv, records: parseCsv(csv.body) };
}

function assertCsvHeaders(res: LightMyRequestResponse, filename: string) {
  assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
  assert.equal(res.headers['content-disposition'], `attachment; filename="${filename}"`);
  assert.equal(res.headers.vary, 'Accept');
  assert.ok(res.headers['x-ratelimit-limit'], 'rate-limit headers as on every authenticated answer');
}

test('timeseries: start,value, one record per JSON point, the same values; by day and by hour', async () => {
  for (const [metric, interval] of [
    ['pageviews', 'day'],
    ['visitors', 'hour'],
    ['bounce_rate', 'day'],
    ['avg_pages_per_session', 'hour'],
  ] as const) {
    const { json, csv, records } = await both('/v1/metrics/timeseries', { site_id: site, metric, interval, from: FROM, to: TO });
    assertCsvHeaders(csv, `${site}-${metric}-${FROM}-${TO}.csv`);
    assert.deepEqual(records[0], ['start', 'value']);
    assert.deepEqual(
      records.slice(1),
      json.current.points.map((p: { start: string; value: number }) => [p.start, field(p.value)]),
      `${metric} ${interval}`,
    );
    assert.ok(
      json.current.points.some((p: { value: number }) => p.value > 0),
      `${metric}: the fixture has data`,
    );
  }
  const rates = await both('/v1/metrics/timeseries', { site_id: site, metric: 'bounce_rate', from: FROM, to: TO });
  assert.ok(
    rates.records.slice(1).some(([, v]) => v.includes('.')),
    'a fractional rate is written in full',
  );
});

test('breakdown: key,value, the JSON rows in order; keys with commas, quotes, CR, LF and non-ASCII text survive', async () => {
  const { json, csv, records } = await both('/v1/metrics/breakdown', {
    site_id: site,
    dimension: 'browser',
    metric: 'visitors',
    from: FROM,
    to: TO,
  });
  assertCsvHeaders(csv, `${site}-visitors-by-browser-${FROM}-${TO}.csv`);
  assert.deepEqual(records[0], ['key', 'value']);
  assert.deepEqual(
    records.slice(1),
    json.current.rows.map((r: { key: string | null; value: number }) => [field(r.key), field(r.value)]),
  );
  const keys = json.current.rows.map((r: { key: string | null }) => r.key);
  for (const b of BROWSERS) assert.ok(keys.includes(b), `${JSON.stringify(b)} is a key of the JSON`);
  // the writer's exact bytes for the edge cases
  for (const text of ['"Fire,fox"', '"Say ""hi"""', '"Line\nBreak"', '"Carriage\rReturn"', '""""', '","', 'Crème brûlée ☃ 日本', 'Plain'])
    assert.ok(csv.body.includes(`\r\n${text},`), `${JSON.stringify(text)} in ${JSON.stringify(csv.body)}`);
  assert.ok(csv.rawPayload.includes(Buffer.from('Crème brûlée ☃ 日本', 'utf8')), 'UTF-8 bytes');
  assert.ok(!csv.rawPayload.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf])), 'no byte order mark');

  const pages = await both('/v1/metrics/breakdown', { site_id: site, dimension: 'page', from: FROM, to: TO });
  assert.deepEqual(
    pages.records.slice(1),
    pages.json.current.rows.map((r: { key: string | null; value: number }) => [field(r.key), field(r.value)]),
  );
  assert.ok(pages.csv.body.includes('\r\n"/a,b",') && pages.csv.body.includes('\r\n"/q""uote",'));

  const referrers = await both('/v1/metrics/breakdown', { site_id: site, dimension: 'referrer', metric: 'sessions', from: FROM, to: TO });
  assert.deepEqual(
    referrers.json.current.rows.map((r: { key: string | null }) => r.key),
    [null],
    'no referrer: the null key',
  );
  assert.deepEqual(referrers.records.slice(1), [['', field(referrers.json.current.rows[0].value)]], 'a null key is an empty field');
});

test('breakdown by tenant adds tenant_id, tenant_slug, tenant_name; rows without a tenant leave them empty', async () => {
  const { json, records } = await both('/v1/metrics/breakdown', { site_id: site, dimension: 'tenant', from: FROM, to: TO });
  assert.deepEqual(records[0], ['key', 'value', 'tenant_id', 'tenant_slug', 'tenant_name']);
  const rows = json.current.rows as Record<string, unknown>[];
  assert.deepEqual(
    records.slice(1),
    rows.map((r) => [r.key, r.value, r.tenant_id, r.tenant_slug, r.tenant_name].map(field)),
  );
  assert.deepEqual(
    records.find((r) => r[0] === tenant),
    [tenant, records.find((r) => r[0] === tenant)![1], tenant, 'acme', TENANT_NAME],
  );
  assert.deepEqual(records.find((r) => r[0] === '')?.slice(2), ['', '', '']);
});

test('with compare: a leading period column, the current rows then the compare rows', async () => {
  const ts = await both('/v1/metrics/timeseries', { site_id: site, from: FROM, to: TO, compare: 'prev_period' });
  assert.deepEqual(ts.records[0], ['period', 'start', 'value']);
  const points = (which: 'current' | 'compare') =>
    ts.json[which].points.map((p: { start: string; value: number }) => [which, p.start, field(p.value)]);
  assert.deepEqual(ts.records.slice(1), [...points('current'), ...points('compare')]);
  assert.ok(
    ts.json.compare.points.some((p: { value: number }) => p.value > 0),
    'the compare window has data',
  );

  const bd = await both('/v1/metrics/breakdown', { site_id: site, dimension: 'page', from: FROM, to: TO, compare: 'prev_period' });
  assert.deepEqual(bd.records[0], ['period', 'key', 'value']);
  const rows = (which: 'current' | 'compare') =>
    bd.json[which].rows.map((r: { key: string | null; value: number }) => [which, field(r.key), field(r.value)]);
  assert.deepEqual(bd.records.slice(1), [...rows('current'), ...rows('compare')]);
});

test('Accept: text/csv with a charset, or a list preferring it, is CSV; without it, or preferring JSON, the envelope', async () => {
  const q = `site_id=${site}&from=${FROM}&to=${TO}`;
  for (const accept of ['text/csv; charset=utf-8', 'application/json;q=0.5, text/csv', 'text/csv, */*;q=0.1']) {
    const res = await h.get(`/v1/metrics/timeseries?${q}`, { token: h.secret, headers: { accept } });
    assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8', accept);
  }
  for (const accept of ['application/json', 'application/json, text/csv', '*/*', 'text/html', 'text/csv;q=0']) {
    const res = await h.get(`/v1/metrics/breakdown?${q}&dimension=page`, { token: h.secret, headers: { accept } });
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8', accept);
    assert.equal(res.headers.vary, 'Accept', accept);
    assert.ok(res.json().meta, accept);
  }
  // the other routes answer JSON whatever Accept says, as before
  const me = await h.get('/v1/me', { token: h.secret, headers: CSV });
  assert.equal(me.headers['content-type'], 'application/json; charset=utf-8');
  assert.equal(me.headers.vary, undefined);
});

test('metered exactly as the JSON: the same units, from the ledger, a cache hit too', async () => {
  const used = async () => h.container.ledger.used(h.ws.id, '2025-06');
  const cache = h.container.analytics!.cache!;
  for (const [path, query] of [
    ['/v1/metrics/timeseries', { site_id: site, metric: 'avg_session_eng_time_ms', interval: 'hour', from: '2025-05-01', to: TO }],
    ['/v1/metrics/breakdown', { site_id: site, dimension: 'page', limit: 250, from: '2025-04-01', to: TO }],
  ] as const) {
    const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
    const before = await used();
    const json = (await h.call(path, query)).json();
    const afterJson = await used();
    assert.equal(afterJson - before, json.meta.units_charged, path);
    const hits: string[] = [];
    const get = cache.get.bind(cache);
    cache.get = async (key) => {
      const hit = await get(key);
      if (hit && key.startsWith(`["${path} csv"`)) hits.push(key);
      return hit;
    };
    for (let i = 0; i < 2; i++) {
      const start = await used();
      const res = await h.get(`${path}?${qs}`, { token: h.secret, headers: CSV });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal((await used()) - start, json.meta.units_charged, `${path}: CSV request ${i + 1}`);
    }
    cache.get = get;
    assert.equal(hits.length, 1, `${path}: the second CSV request is a cache hit`);
    assert.ok(json.meta.units_charged > 4, `${path}: priced on range and limit (${json.meta.units_charged})`);
  }
});

test('the 5 MiB budget measures the CSV bytes: over it 422 and nothing charged, at it 200; fresh or cached', async () => {
  const analytics = h.container.analytics!;
  assert.equal(analytics.maxResponseBytes ?? MAX_RESPONSE_BYTES, MAX_RESPONSE_BYTES);
  const url = `/v1/metrics/breakdown?site_id=${site}&dimension=browser&metric=sessions&from=${FROM}&to=${TO}`;
  const get = () => h.get(url, { token: h.secret, headers: CSV });
  const used = () => h.container.ledger.used(h.ws.id, '2025-06');
  const over = async (what: string) => {
    const before = await used();
    const res = await get();
    assert.equal(res.statusCode, 422, `${what}: ${res.body}`);
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8', 'errors stay JSON envelopes');
    assert.equal(res.json().error.code, 'REPORT_RESPONSE_TOO_LARGE');
    assert.equal(await used(), before, `${what}: a refused request costs nothing`);
    return res.json().error.details.measured_bytes as number;
  };
  try {
    h.container.analytics = { ...analytics, maxResponseBytes: 10 };
    const measured = await over('fresh');
    h.container.analytics = analytics;
    const ok = await get();
    assert.equal(ok.statusCode, 200);
    assert.equal(Buffer.byteLength(ok.body), measured, 'the budget measured the CSV body');
    h.container.analytics = { ...analytics, maxResponseBytes: measured - 1 };
    assert.equal(await over('cached'), measured);
    h.container.analytics = { ...analytics, maxResponseBytes: measured };
    assert.equal((await get()).statusCode, 200, 'exactly at the budget');
  } finally {
    h.container.analytics = analytics;
  }
});

test('errors stay JSON envelopes; HEAD and other methods are 405 as before', async () => {
  const bad = await h.get(`/v1/metrics/timeseries?site_id=${site}&metric=bounces`, { token: h.secret, headers: CSV });
  assert.equal(bad.statusCode, 422);
  assert.equal(bad.headers['content-type'], 'application/json; charset=utf-8');
  assert.equal(bad.json().error.code, 'INVALID_PARAMS');
  const anonymous = await h.get(`/v1/metrics/timeseries?site_id=${site}`, { headers: CSV });
  assert.equal(anonymous.statusCode, 401);
  assert.equal(anonymous.json().error.code, 'UNAUTHORIZED');
  for (const path of ['/v1/metrics/timeseries', '/v1/metrics/breakdown']) {
    for (const method of ['HEAD', 'POST'] as const) {
      const res = await h.get(`${path}?site_id=${site}`, { token: h.secret, method, headers: CSV });
      assert.equal(res.statusCode, 405, `${method} ${path}`);
      assert.equal(res.headers.allow, 'GET');
      if (method === 'HEAD') assert.equal(res.body, '');
      else assert.equal(res.json().error.code, 'INVALID_METHOD');
    }
  }
});

test("CSV is refused where the caller's rules have no exports.csv, with the plan checks, not otherwise", async () => {
  const free = await h.workspace('free');
  const route = { family: 'metrics' as const, scopes: ['metrics:read' as const], surface: 'overview' as const };
  assert.throws(
    () => authorizeRoute(personCaller(free), route, { csv: true }),
    (err: unknown) => err instanceof ApiError && err.code === 'FORBIDDEN' && /CSV/.test(err.message),
  );
  authorizeRoute(personCaller(free), route, { csv: false });
  authorizeRoute(personCaller(await h.workspace('starter')), route, { csv: true });
});
