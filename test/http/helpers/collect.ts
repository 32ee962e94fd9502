// The HTTP harness with live collection open: POST /api/event as a tracker sends it, and reads of
// what was collected through /v1 (after the loader has run).
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { Profile } from '../../../src/domain/plans.js';
import type { ApiPolicyOverrides } from '../../../src/domain/plans.js';
import { harness, type Harness, type HarnessOptions } from './harness.js';

/** A desktop Chrome: a human visitor (a headless or empty agent is a bot). */
export const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

export interface CollectHarness extends Harness {
  siteId: string;
  secret: string;
  /**
   * POST /api/event; objects are JSON-encoded and sent as text/plain unless `contentType` says otherwise.
   * Every answer is checked against the OpenAPI document (status, headers, body).
   */
  post(
    body: unknown,
    opts?: { ua?: string | null; ip?: string; headers?: Record<string, string>; contentType?: string | null },
  ): Promise<LightMyRequestResponse>;
  /** loads what the spool holds now */
  flush(): Promise<void>;
  /** GET a /v1 path with the harness token, query merged with site_id; 200 expected */
  read(path: string, query?: Record<string, string | number>): Promise<any>;
  /** breakdown rows {key: value} of `dimension` (traffic all unless given) */
  breakdown(dimension: string, query?: Record<string, string | number>): Promise<Record<string, number>>;
  addSite(hostnames: string[], profile?: Profile): Promise<string>;
}

export async function collectHarness(
  opts: HarnessOptions & { hostnames?: string[]; profile?: Profile; apiPolicy?: ApiPolicyOverrides } = {},
): Promise<CollectHarness> {
  const h = await harness({ collect: true, ...opts });
  const ws = await h.workspace('enterprise', { allow_tenant_dimension: true, rate_limit_rps: null, ...opts.apiPolicy });
  const addSite = async (hostnames: string[], profile: Profile = 'extended') =>
    (await h.catalog.createSite({ workspaceId: ws.id, name: hostnames[0], hostnames, collectionProfile: profile })).id;
  const siteId = await addSite(opts.hostnames ?? ['live.example'], opts.profile);
  const { secret } = await h.token(ws.id);
  const read = async (path: string, query: Record<string, string | number> = {}) => {
    const qs = new URLSearchParams(Object.entries({ site_id: siteId, ...query }).map(([k, v]) => [k, String(v)]));
    const res = await h.get(`${path}?${qs}`, { token: secret });
    assert.equal(res.statusCode, 200, `${path}: ${res.body}`);
    return res.json();
  };
  return Object.assign(h, {
    siteId,
    secret,
    addSite,
    flush: () => h.collection!.flush(),
    read,
    async breakdown(dimension: string, query: Record<string, string | number> = {}) {
      const body = await read('/v1/metrics/breakdown', { dimension, traffic: 'all', ...query });
      return Object.fromEntries((body.current.rows as { key: string | null; value: number }[]).map((r) => [String(r.key), r.value]));
    },
    async post(body: unknown, o: { ua?: string | null; ip?: string; headers?: Record<string, string>; contentType?: string | null } = {}) {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      const ua = o.ua === undefined ? CHROME : o.ua;
      if (ua !== null) headers['user-agent'] = ua;
      const type = o.contentType === undefined ? 'text/plain' : o.contentType;
      if (type !== null) headers['content-type'] = type;
      const res = await h.app.inject({
        method: 'POST',
        url: '/api/event',
        headers,
        remoteAddress: o.ip ?? '203.0.113.7',
        payload: typeof body === 'string' ? body : JSON.stringify(body),
      });
      h.checker.check('POST', '/api/event', res);
      return res;
    },
  });
}

/** The official tracker's pageview (short keys), as captured in Chromium. */
export function pageview(url: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { n: 'pageview', v: 36, u: url, d: 'live.example', r: null, ...extra };
}
