// Reading the answers of a read batch (an embed's, a share link's) in the HTTP tests: its URL, its
// NDJSON lines, the answers without what differs between two sendings of one read, and the reads the
// server made (the request lines it logged).
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { metricsHarness, pv, type MetricsHarness } from '../metrics-harness.js';

/** The days batchWorld fills. */
export const FROM = '2025-06-10';
export const TO = '2025-06-12';

/**
 * A pro workspace's site of two tenants with three days of visits (acme 3 a day on /a, globex 5 on /b),
 * and an app over its container that logs every request to `log` (the reads the server made).
 */
export async function batchWorld(): Promise<{
  h: MetricsHarness;
  app: FastifyInstance;
  log: ReturnType<typeof requestLog>;
  site: string;
  tenantA: string;
  tenantB: string;
}> {
  const h = await metricsHarness();
  const site = await h.site();
  const tenantA = await h.tenant(site, 'acme');
  const tenantB = await h.tenant(site, 'globex');
  const lines = [];
  for (let d = 10; d <= 12; d++) {
    for (let v = 0; v < 3; v++) lines.push(pv(site, `2025-06-${d}T0${v}:00:00Z`, '/a', `a${d}${v}`, { tenant_id: tenantA }));
    for (let v = 0; v < 5; v++) lines.push(pv(site, `2025-06-${d}T1${v}:00:00Z`, '/b', `b${d}${v}`, { tenant_id: tenantB }));
  }
  await h.importEvents(lines);
  const log = requestLog();
  const app = await buildApp(h.container, { logger: { level: 'trace', stream: log.stream } });
  return { h, app, log, site, tenantA, tenantB };
}

export type Line = { i: number; status: number; retry_after?: string; body: any };

export const qs = (query: Record<string, string>) => new URLSearchParams(query).toString();
export const batchUrl = (path: string, reads: readonly string[]) => `${path}?${reads.map((r) => `r=${encodeURIComponent(r)}`).join('&')}`;
/** The reads an embed or share page makes of its site, as the page asks for them (site_id named, as it names it). */
export const pageReads = (site: string, from: string, to: string) => [
  `/v1/reports/overview?${qs({ site_id: site, from, to })}`,
  `/v1/metrics/timeseries?${qs({ site_id: site, from, to, metric: 'visitors', compare: 'prev_period' })}`,
  `/v1/metrics/breakdown?${qs({ site_id: site, from, to, dimension: 'tenant', metric: 'visitors' })}`,
  `/v1/reports/content?${qs({ site_id: site, from, to })}`,
  `/v1/reports/acquisition?${qs({ site_id: site, from, to })}`,
  `/v1/goals/conversions?${qs({ site_id: site, from, to })}`,
  `/v1/goals?${qs({ site_id: site })}`,
];

/** Three reads of which the page's read may make the middle one only: another tenant's (403), a dimension that is none (422). */
export const mixedReads = (site: string, otherTenant: string, from: string, to: string) => [
  `/v1/reports/overview?${qs({ site_id: site, tenant_id: otherTenant, from, to })}`,
  pageReads(site, from, to)[0],
  `/v1/metrics/breakdown?${qs({ site_id: site, from, to, dimension: 'nope', metric: 'visitors' })}`,
];

/** A batch's answer: 200, NDJSON, never stored, one line per read of `reads`; its lines in the order of r. */
export function batchLines(res: LightMyRequestResponse, reads: readonly string[]): Line[] {
  assert.equal(res.statusCode, 200, res.body.slice(0, 300));
  assert.match(String(res.headers['content-type']), /^application\/x-ndjson/);
  assert.equal(res.headers['cache-control'], 'no-store');
  const lines = linesOf(res.body);
  assert.deepEqual(
    lines.map((l) => l.i),
    reads.map((_, i) => i),
    'one line per read',
  );
  return lines;
}

/** Each line holds what its read, sent alone by `alone`, answers (status and body); the answers alone, in order. */
export async function assertLinesAsAlone(
  lines: readonly Line[],
  reads: readonly string[],
  alone: (read: string) => Promise<LightMyRequestResponse>,
): Promise<LightMyRequestResponse[]> {
  const answers: LightMyRequestResponse[] = [];
  for (const [i, read] of reads.entries()) {
    const res = await alone(read);
    assert.equal(lines[i].status, res.statusCode, read);
    assert.deepEqual(comparable(lines[i].body), comparable(res.json()), read);
    answers.push(res);
  }
  return answers;
}

/** A refusal in the read API's envelope, its request id the header's: its error. */
export function refused(
  res: LightMyRequestResponse,
  status: number,
  code: string,
  what: string,
): { message: string; details?: Record<string, unknown> } {
  assert.equal(res.statusCode, status, `${what}: ${res.body.slice(0, 300)}`);
  const body = res.json();
  assert.deepEqual(Object.keys(body), ['error'], what);
  assert.equal(body.error.code, code, what);
  assert.equal(body.error.request_id, res.headers['x-request-id'], what);
  return body.error;
}

/** the lines, in the order of r */
export const linesOf = (body: string): Line[] =>
  body
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line)
    .sort((a, b) => a.i - b.i);

/**
 * An answer without what differs between two sendings of the same read: its request id, whether the
 * response cache served it, and the workspace's units used so far (which the other sending moved).
 */
export function comparable(body: unknown): unknown {
  return JSON.parse(
    JSON.stringify(body, (key, value) => {
      if (key === 'request_id' || key === 'cached' || key === 'used_units') return undefined;
      if (key === 'notes' && Array.isArray(value)) return value.filter((n) => !String(n).startsWith('Served from the response cache'));
      return value;
    }),
  );
}

/** A log stream for buildApp, and the urls of the requests the server took (each "incoming request" line). */
export function requestLog(): { stream: Writable; text: () => string; urls: () => string[] } {
  let text = '';
  const stream = new Writable({ write: (chunk, _enc, done) => ((text += chunk.toString()), done()) });
  const urls = () =>
    text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg?: string; req?: { url?: string } })
      .filter((l) => l.msg === 'incoming request')
      .map((l) => l.req?.url ?? '');
  return { stream, text: () => text, urls };
}
