// Every route the app really registers (read from Fastify, as route-security.test.ts reads them), entered
// each way it can be (a token, an embed token, a session with its CSRF token, a share link, none), for
// every method it answers: each parameter (query, path, JSON body member, a collected event's fields)
// gets, one at a time and the others valid, NUL bytes, lone surrogates, bytes that are not UTF-8, 100 KB,
// 1e308, -1, 2^63, odd types where strings go and odd percent-encoding (helpers/fuzz-values.ts). No answer
// may be 500 or more, and every answer of 400 or more is the error envelope (a read batch's lines too).
// Deterministic (fixed values and FUZZ_SEED); on the stack FOOTFALL_TEST_STACK names: the HTTP suite runs
// it on PostgreSQL + Redis + ClickHouse when the FOOTFALL_TEST_* variables are set (http-suite-*.test.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { TObject } from '@sinclair/typebox';
import { APP_API_PREFIX } from '../../src/http/app-api/app-api-prefix.js';
import { appApiRoutes } from '../../src/http/app-api/routes/index.js';
import { analyticsRoutes, platformRoutes } from '../../src/http/v1/index.js';
import { TrackerEventSchema } from '../../src/http/collect/collect-schemas.js';
import type { Harness } from './helpers/harness.js';
import { harnessWithRoutes } from './helpers/registered-routes.js';
import type { Registered } from './helpers/route-rules.js';
import { ORIGIN, person, type Person } from './helpers/app-api.js';
import { ROLE_TABLE, type World } from './helpers/app-api-roles.js';
import { embedKey, mint, shareLink } from './helpers/embeds.js';
import { CHROME } from './helpers/collect.js';
import { FUZZ_SEED, JSON_VALUES, QUERY_FORMS, URL_VALUES, type FuzzValue } from './helpers/fuzz-values.js';
import { missingScaleEnv } from './helpers/stack.js';
import { HTTP_SUITE_PARTS, httpSuitePart } from '../stack/http-suite.js';

const V1 = new Map([...platformRoutes, ...analyticsRoutes].map((d) => [d.url, d]));
const MANAGEMENT = new Map(appApiRoutes.map((d) => [`${d.method} ${APP_API_PREFIX}${d.url}`, d]));
const SHARE_API = '/share/:slug/api';
const ODD_BODIES: FuzzValue<unknown>[] = JSON_VALUES.filter(
  (v) => typeof v.value !== 'object' || v.value === null || Array.isArray(v.value),
);

let h: Harness;
let registered: Registered[];
let w: World;
let site: string;
let token: string;
let embed: string;
let share: { slug: string };
let viewer: Person;

before(async () => {
  ({ h, registered } = await harnessWithRoutes({ collect: true }));
  // no rate and no cap: every request goes as deep as its parameters let it
  const ws = (await h.workspace('enterprise', { rate_limit_rps: null, hard_cap_units: null, monthly_included_units: null })).id;
  const other = (await h.workspace('pro')).id;
  let n = 0;
  w = { h, ws, other, seq: () => ++n };
  site = (await h.catalog.createSite({ workspaceId: ws, name: 'Fuzz', hostnames: ['fuzz.example'], collectionProfile: 'extended' })).id;
  const parent = await h.token(ws, { scopes: ['metrics:read', 'usage:read'] });
  token = parent.secret;
  embed = mint(h, await embedKey(h, ws), { token_id: parent.id, site_id: site });
  share = await shareLink(h, site);
  viewer = await person(h, { workspaceId: ws, role: 'owner' });
});
after(() => h?.close());

const failures: string[] = [];
const answered = new Map<string, number>();
const statuses = new Map<number, number>();
let sent = 0;
let address = 0;

/** One request: the clock moves past every per-second window first, so no answer is a 429 of the fuzz's own pace. */
async function probe(way: string, what: string, opts: InjectOptions): Promise<void> {
  h.clock.advance(60);
  const res = await h.app.inject({ remoteAddress: `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address++ & 255}`, ...opts });
  sent++;
  answered.set(way, (answered.get(way) ?? 0) + 1);
  statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
  const problem = judge(res, opts.method ?? 'GET');
  if (problem) failures.push(`[${way}] ${opts.method ?? 'GET'} ${what}: ${problem}`);
}

function judge(res: LightMyRequestResponse, method: string): string | null {
  if (res.statusCode >= 500) return `${res.statusCode} ${oneLine(res.body)}`;
  // a page answers a browser with a page, whatever its status (a gone share link's shell says it is gone)
  const page = String(res.headers['content-type']).startsWith('text/html');
  if (res.statusCode >= 400 && method !== 'HEAD' && !page) return envelopeProblem(res.body, res.headers['x-request-id']);
  if (String(res.headers['content-type']).startsWith('application/x-ndjson'))
    for (const line of res.body.split('\n').filter(Boolean)) {
      const { status, body } = JSON.parse(line) as { status: number; body: unknown };
      if (status >= 500) return `a read of the batch answered ${status}: ${oneLine(line)}`;
      if (status >= 400) {
        const problem = envelopeProblem(JSON.stringify(body), (body as { error?: { request_id?: string } })?.error?.request_id);
        if (problem) return `a read of the batch: ${problem}`;
      }
    }
  return null;
}

function envelopeProblem(text: string, requestId: unknown): string | null {
  let body: { error?: { code?: unknown; message?: unknown; request_id?: unknown } };
  try {
    body = JSON.parse(text);
  } catch {
    return `not JSON: ${oneLine(text)}`;
  }
  const e = body?.error;
  if (
    Object.keys(body ?? {}).join() !== 'error' ||
    typeof e?.code !== 'string' ||
    typeof e.message !== 'string' ||
    e.message === '' ||
    e.request_id !== requestId
  )
    return `not the error envelope: ${oneLine(text)}`;
  return null;
}

const oneLine = (text: string) => JSON.stringify(text.slice(0, 240));

/** `url` with its `:name` segments from `params`, `name` (and a `*`) replaced by `raw` as written. */
function fill(url: string, params: Record<string, string>, name?: string, raw?: string): string {
  return url.replace(/:([a-z_]+)|\*/g, (m, p: string | undefined) =>
    p === name || (m === '*' && name === '*') ? raw! : (params[p ?? '*'] ?? 'x'),
  );
}

const pathNames = (url: string) => [...url.matchAll(/:([a-z_]+)|\*/g)].map((m) => m[1] ?? '*');
const propsOf = (schema: TObject | undefined) => Object.keys(schema?.properties ?? {});

/** Each parameter of a read route (/v1, the dashboard's twin, a share link's) with each value, the others valid. */
async function fuzzRead(
  way: string,
  url: string,
  headers: Record<string, string>,
  base: Record<string, string>,
  params: string[],
): Promise<void> {
  const qs = (without: string) =>
    Object.entries(base)
      .filter(([k]) => k !== without)
      .map(([k, v]) => `${k}=${v}`);
  for (const p of params)
    for (const v of [...URL_VALUES.map((x) => ({ label: x.label, value: `${p}=${x.value}` })), ...QUERY_FORMS(p)])
      await probe(way, `${url} ${p}=${v.label}`, { method: 'GET', url: `${url}?${[...qs(p), v.value].join('&')}`, headers });
}

function readBase(url: string): Record<string, string> {
  const def = V1.get(url)!;
  const base: Record<string, string> = {};
  if (def.site) base.site_id = site;
  if (url === '/v1/metrics/breakdown') base.dimension = 'page';
  return base;
}

async function fuzzBatch(way: string, url: string, headers: Record<string, string>): Promise<void> {
  const reads = URL_VALUES.map((x) => ({
    label: `r=/v1/goals?site_id=${x.label}`,
    value: `r=${encodeURIComponent(`/v1/goals?site_id=${x.value}`)}`,
  }));
  for (const v of [...URL_VALUES.map((x) => ({ label: `r=${x.label}`, value: `r=${x.value}` })), ...QUERY_FORMS('r'), ...reads])
    await probe(way, `${url} ${v.label}`, { method: 'GET', url: `${url}?${v.value}`, headers });
}

const sessionHeaders = (p: Person, method: string) => ({
  cookie: `footfall_session=${p.cookie}`,
  ...(method === 'GET' ? {} : { 'x-csrf-token': p.csrf, origin: ORIGIN }),
});

/** A management route: its path parameters, query parameters and body members, one at a time, from a valid call. */
async function fuzzManagement(method: string, url: string): Promise<void> {
  const def = MANAGEMENT.get(`${method} ${url}`)!;
  // a person of its own per route: a route that ends the session or changes the password ends only theirs
  const who = def.auth === 'session' ? await person(h, { workspaceId: w.ws, role: 'owner' }) : null;
  const base = (await ROLE_TABLE[`${def.method} ${def.url}`]?.setup?.(w)) ?? {};
  const params = { workspace_id: w.ws, ...base.params };
  const query = new URLSearchParams((base.query ?? '').replace(/^\?/, ''));
  const headers = { ...(who ? sessionHeaders(who, method) : {}), 'content-type': 'application/json' };
  const send = (what: string, path: string, q: string, body: unknown) =>
    probe('management', what, {
      method: method as 'GET',
      url: `${path}${q ? `?${q}` : ''}`,
      headers,
      ...(method === 'GET' ? {} : { payload: JSON.stringify(body ?? {}) }),
    });
  const path = fill(url, params);
  for (const p of pathNames(url))
    for (const v of URL_VALUES) await send(`${url} :${p}=${v.label}`, fill(url, params, p, v.value), query.toString(), base.body);
  for (const p of propsOf(def.query as TObject | undefined)) {
    const rest = [...query].filter(([k]) => k !== p).map(([k, v]) => `${k}=${encodeURIComponent(v)}`);
    for (const v of [...URL_VALUES.map((x) => ({ label: x.label, value: `${p}=${x.value}` })), ...QUERY_FORMS(p)])
      await send(`${url} ${p}=${v.label}`, path, [...rest, v.value].join('&'), base.body);
  }
  if (def.body) {
    for (const p of propsOf(def.body as TObject))
      for (const v of JSON_VALUES)
        await send(`${url} body.${p}=${v.label}`, path, query.toString(), { ...(base.body as object), [p]: v.value });
    for (const v of ODD_BODIES) await send(`${url} body=${v.label}`, path, query.toString(), v.value);
  }
  if (!def.body && !def.query && pathNames(url).length === 0) await send(`${url} (no parameters) x=%00`, path, 'x=%00', { x: '\u0000' });
}

async function fuzzCollection(): Promise<void> {
  const headers = { 'content-type': 'text/plain', 'user-agent': CHROME };
  const base = { n: 'pageview', u: 'https://fuzz.example/page', d: 'fuzz.example' };
  const post = (what: string, payload: string | Buffer) =>
    probe('collection', `/api/event ${what}`, { method: 'POST', url: '/api/event', headers, payload });
  const members = [...new Set(['n', 'u', 'd', 'r', 'p', '$', 'h', 'i', 'e', 'sd', 'v', ...propsOf(TrackerEventSchema)])];
  for (const m of members)
    for (const v of JSON_VALUES)
      await post(`${m}=${v.label}`, JSON.stringify({ ...base, ...(m === 'e' ? { n: 'engagement' } : {}), [m]: v.value }));
  for (const prop of ['action_id', 'title', 'tenant_id', 'form_id', 'url', 'family'])
    for (const v of JSON_VALUES)
      await post(
        `p.${prop}=${v.label}`,
        JSON.stringify({ ...base, n: prop === 'title' ? 'pageview' : 'Outbound Link: Click', p: { [prop]: v.value } }),
      );
  for (const v of ODD_BODIES) await post(`body=${v.label}`, JSON.stringify(v.value));
  for (const raw of ['\u0000', '{"n":"pageview\u0000', '\ud800', '{"n":"pageview","u":"https://fuzz.example/\u0000","d":"fuzz.example"}'])
    await post(`raw ${JSON.stringify(raw)}`, raw);
  await post('bytes that are not UTF-8', Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xed, 0xa0, 0x80, 0x22, 0x7d]));
}

test(`no parameter of any registered route, entered any way, gets an answer of 500 or more (${process.env.FOOTFALL_TEST_STACK ?? 'embedded'} stack, fast-check seed ${FUZZ_SEED})`, {
  timeout: 10 * 60_000,
}, async (t) => {
  const started = Date.now();
  const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });
  const done = new Set<string>();
  for (const r of registered) {
    const key = `${r.method} ${r.url}`;
    if (done.has(key)) continue;
    done.add(key);
    if (r.method === 'GET' && V1.has(r.url)) {
      const def = V1.get(r.url)!;
      const params = propsOf(def.querystring as TObject | undefined);
      await fuzzRead('token', r.url, bearer(token), readBase(r.url), params);
      if (def.embed) await fuzzRead('embed token', r.url, bearer(embed), readBase(r.url), params);
      if (params.length === 0) await probe('token', `${r.url} x=%00`, { url: `${r.url}?x=%00`, headers: bearer(token) });
    } else if (r.method === 'GET' && r.url.startsWith(`${APP_API_PREFIX}/v1/`)) {
      const v1 = r.url.slice(APP_API_PREFIX.length);
      await fuzzRead(
        'dashboard',
        r.url,
        sessionHeaders(viewer, 'GET'),
        readBase(v1),
        propsOf(V1.get(v1)!.querystring as TObject | undefined),
      );
    } else if (r.method === 'GET' && r.url.startsWith(`${SHARE_API}/v1/`)) {
      const v1 = r.url.slice(SHARE_API.length);
      await fuzzRead('share', fill(r.url, { slug: share.slug }), {}, readBase(v1), propsOf(V1.get(v1)!.querystring as TObject | undefined));
      for (const v of URL_VALUES) await probe('share', `${r.url} :slug=${v.label}`, { url: fill(r.url, {}, 'slug', v.value) });
    } else if (r.url === '/embed/api/reads') {
      await fuzzBatch('embed token', r.url, bearer(embed));
    } else if (r.url === `${SHARE_API}/reads`) {
      await fuzzBatch('share', fill(r.url, { slug: share.slug }), {});
      for (const v of URL_VALUES)
        await probe('share', `${r.url} :slug=${v.label}`, { url: `${fill(r.url, {}, 'slug', v.value)}?r=%2Fv1%2Fgoals` });
    } else if (MANAGEMENT.has(key)) {
      await fuzzManagement(r.method, r.url);
    } else if (key === 'POST /api/event') {
      await fuzzCollection();
    } else if (key === `POST ${SHARE_API}/session`) {
      const headers = { 'content-type': 'application/json' };
      for (const v of URL_VALUES)
        await probe('share', `${r.url} :slug=${v.label}`, {
          method: 'POST',
          url: fill(r.url, {}, 'slug', v.value),
          headers,
          payload: '{"password":"x"}',
        });
      for (const v of [...JSON_VALUES, ...ODD_BODIES.map((b) => ({ ...b, label: `body=${b.label}` }))])
        await probe('share', `${r.url} password=${v.label}`, {
          method: 'POST',
          url: fill(r.url, { slug: share.slug }),
          headers,
          payload: JSON.stringify(v.label.startsWith('body=') ? v.value : { password: v.value }),
        });
    } else {
      // the public pages, files and documents: their path parameters, or a query they do not read
      const names = pathNames(r.url);
      const params = {
        site_id: site,
        workspace_id: w.ws,
        section: 'members',
        slug: share.slug,
        file: 'x.js',
        secret: 'x',
        '*': 'index.html',
      };
      for (const p of names)
        for (const v of URL_VALUES)
          await probe('public', `${r.url} :${p}=${v.label}`, { method: r.method as 'GET', url: fill(r.url, params, p, v.value) });
      if (names.length === 0)
        await probe('public', `${r.url} x=%00`, { method: r.method as 'GET', url: `${r.url}?x=%00&y=%ED%A0%80&z=${'x'.repeat(100_000)}` });
    }
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const count = (m: Map<string | number, number>) =>
    [...m]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ');
  t.diagnostic(
    `${h.stack} stack: ${sent} requests over ${done.size} routes in ${seconds} s (seed ${FUZZ_SEED}); by way in: ${count(answered)}; by status: ${count(statuses)}`,
  );
  if (h.stack === 'embedded') {
    const part = Array.from({ length: HTTP_SUITE_PARTS }, (_, i) => i + 1).find((k) =>
      httpSuitePart(k).includes('test/http/route-fuzz.test.ts'),
    );
    const missing = missingScaleEnv();
    t.diagnostic(
      missing.length
        ? `the same walk on PostgreSQL + Redis + ClickHouse is skipped: ${missing.join(', ')} not set (scripts/services.sh start prints them)`
        : `the same walk on PostgreSQL + Redis + ClickHouse: test/stack/http-suite-${part}.test.ts (or FOOTFALL_TEST_STACK=scale on this file)`,
    );
  }
  assert.deepEqual(failures.slice(0, 40), [], `${failures.length} of ${sent} answers failed (the first 40 above)`);
  for (const way of ['token', 'embed token', 'dashboard', 'share', 'management', 'collection', 'public'])
    assert.ok((answered.get(way) ?? 0) > 50, `the ${way} way in was walked`);
  assert.ok(done.size >= 80, `only ${done.size} routes walked`);
});
