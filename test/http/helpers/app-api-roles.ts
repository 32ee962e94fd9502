// The role table of the management API: for every route, the status each kind of caller gets (owner,
// admin, viewer, a person of another workspace, no session) and how to make what the call needs.
// app-api-roles.test.ts calls every route as every caller; route-security.test.ts checks that every
// session route the app registers is in it.
import { HOTP, Secret } from 'otpauth';
import { hashSecret } from '../../../src/domain/tokens.js';
import { newTotpSecret, stepAt } from '../../../src/domain/two-factor.js';
import { sealTotpSecret } from '../../../src/services/people/totp-seal.js';
import type { Role } from '../../../src/domain/roles.js';
import { TEST_HASHER, type Harness } from './harness.js';
import { PASSWORD } from './app-api.js';

export type Caller = Role | 'stranger' | 'anonymous';
export const CALLERS: Caller[] = ['owner', 'admin', 'viewer', 'stranger', 'anonymous'];

export interface World {
  h: Harness;
  ws: string;
  other: string;
  seq: () => number;
}

export interface Call {
  params?: Record<string, string>;
  query?: string;
  body?: unknown;
}

export interface Entry {
  /** statuses for owner, admin, viewer, stranger, anonymous */
  expect: [number, number, number, number, number];
  setup?: (w: World) => Promise<Call>;
}

export const site = async (w: World) => {
  const s = await w.h.catalog.createSite({
    workspaceId: w.ws,
    name: 'S',
    hostnames: [`s${w.seq()}.example.com`],
    collectionProfile: 'extended',
  });
  return s.id;
};
const link = async (w: World, purpose: 'reset' | 'sign_in') => {
  const u = await w.h.people.createUser({ email: `l${w.seq()}@example.com` });
  const secret = `L${String(w.seq()).padStart(31, '0')}`;
  await w.h.people.createLink({
    secretHash: hashSecret(secret),
    userId: u.id,
    purpose,
    expiresAt: '2099-01-01T00:00:00.000Z',
    now: w.h.clock.now().toISOString(),
  });
  return secret;
};

/** An open invitation of a new email to the other workspace: its link's secret. */
const invitation = async (w: World) => {
  const secret = `I${String(w.seq()).padStart(31, '0')}`;
  await w.h.people.createInvitation({
    workspaceId: w.other,
    email: `inv${w.seq()}@example.com`,
    role: 'viewer',
    secretHash: hashSecret(secret),
    invitedBy: null,
    expiresAt: '2099-01-01T00:00:00.000Z',
    now: w.h.clock.now().toISOString(),
    seatLimit: null,
  });
  return secret;
};

/** A person with two-factor on and a sign-in waiting for its second step: the challenge, and a code that passes. */
const secondStep = async (w: World) => {
  const u = await w.h.people.createUser({ email: `tf${w.seq()}@example.com`, passwordHash: 'unused' });
  const secret = newTotpSecret();
  const secretSealed = await sealTotpSecret({ catalog: w.h.catalog }, u.id, secret);
  const now = w.h.clock.now();
  await w.h.people.beginTwoFactor({ userId: u.id, secretSealed, now: now.toISOString() });
  const step = stepAt(now.getTime());
  await w.h.people.enableTwoFactor({
    userId: u.id,
    secretSealed,
    step: step - 1,
    recoveryCodeHashes: [],
    keepSession: '',
    now: now.toISOString(),
  });
  const challenge = `C${String(w.seq()).padStart(42, '0')}`;
  const expiresAt = new Date(now.getTime() + 300_000).toISOString();
  await w.h.people.createTwoFactorChallenge({ challengeHash: hashSecret(challenge), userId: u.id, now: now.toISOString(), expiresAt });
  return { challenge, code: HOTP.generate({ secret: Secret.fromBase32(secret), counter: step }) };
};

const SIGNED_IN: Entry['expect'] = [200, 200, 200, 200, 401];
/** two-factor is off for every caller: a change of it is 409 once the password is right */
const TWO_FACTOR_OFF: Entry['expect'] = [409, 409, 409, 409, 401];
const OWNER_ONLY: Entry['expect'] = [200, 403, 403, 404, 401];
const ADMIN_READ: Entry['expect'] = [200, 200, 403, 404, 401];
const ANY_READ: Entry['expect'] = [200, 200, 200, 404, 401];
const ADMIN_CREATE: Entry['expect'] = [201, 201, 403, 404, 401];
const ADMIN_CHANGE: Entry['expect'] = [200, 200, 403, 404, 401];
const ADMIN_DELETE: Entry['expect'] = [204, 204, 403, 404, 401];

export const ROLE_TABLE: Record<string, Entry> = {
  'POST /session': {
    expect: [200, 200, 200, 200, 200],
    setup: async (w) => {
      const email = `signin${w.seq()}@example.com`;
      await w.h.people.createUser({ email, passwordHash: await TEST_HASHER.hash(PASSWORD) });
      return { body: { email, password: PASSWORD } };
    },
  },
  'GET /session': { expect: SIGNED_IN },
  'DELETE /session': { expect: [204, 204, 204, 204, 401] },
  'POST /session/password': {
    expect: SIGNED_IN,
    setup: async () => ({ body: { current_password: PASSWORD, new_password: 'a brand new password' } }),
  },
  'PATCH /session/name': { expect: SIGNED_IN, setup: async () => ({ body: { name: 'A New Name' } }) },
  'POST /session/sign-out-everywhere': { expect: [204, 204, 204, 204, 401] },
  'POST /session/second-step': { expect: [200, 200, 200, 200, 200], setup: async (w) => ({ body: await secondStep(w) }) },
  'GET /session/two-factor': { expect: SIGNED_IN },
  'POST /session/two-factor/setup': { expect: SIGNED_IN },
  'POST /session/two-factor/enable': { expect: TWO_FACTOR_OFF, setup: async () => ({ body: { password: PASSWORD, code: '123456' } }) },
  'POST /session/two-factor/recovery-codes': {
    expect: TWO_FACTOR_OFF,
    setup: async () => ({ body: { password: PASSWORD, code: '123456' } }),
  },
  'POST /session/two-factor/disable': { expect: TWO_FACTOR_OFF, setup: async () => ({ body: { password: PASSWORD, code: '123456' } }) },
  'POST /invitations/accept': {
    expect: [200, 200, 200, 200, 200],
    setup: async (w) => ({ body: { invitation: await invitation(w), password: PASSWORD, name: 'Invitee' } }),
  },
  'POST /invitations/preview': { expect: [200, 200, 200, 200, 200], setup: async (w) => ({ body: { invitation: await invitation(w) } }) },
  // Joining needs a session whose email is the invitation's: every caller here is someone else (the
  // person invited joining is held by invitations-existing-accounts.test.ts).
  'POST /invitations/join': { expect: [403, 403, 403, 403, 401], setup: async (w) => ({ body: { invitation: await invitation(w) } }) },
  'POST /password-reset': { expect: [200, 200, 200, 200, 200], setup: async () => ({ body: { email: 'anyone@example.com' } }) },
  'POST /password-reset/accept': {
    expect: [200, 200, 200, 200, 200],
    setup: async (w) => ({ body: { reset: await link(w, 'reset'), password: PASSWORD } }),
  },
  'POST /sign-in-links/accept': {
    expect: [200, 200, 200, 200, 200],
    setup: async (w) => ({ body: { sign_in: await link(w, 'sign_in') } }),
  },
  'GET /workspaces': { expect: SIGNED_IN },
  'POST /workspaces': { expect: [201, 201, 201, 201, 401], setup: async () => ({ body: { name: 'Mine' } }) },
  'GET /workspaces/:workspace_id': { expect: ANY_READ },
  'PATCH /workspaces/:workspace_id': { expect: OWNER_ONLY, setup: async () => ({ body: { name: 'Renamed' } }) },
  'GET /workspaces/:workspace_id/usage': { expect: ADMIN_READ },
  'GET /workspaces/:workspace_id/members': { expect: ADMIN_READ },
  'PATCH /workspaces/:workspace_id/members/:user_id': {
    expect: OWNER_ONLY,
    setup: async (w) => {
      const u = await w.h.people.createUser({ email: `m${w.seq()}@example.com` });
      await w.h.people.addMember({ workspaceId: w.ws, userId: u.id, role: 'viewer' });
      return { params: { user_id: u.id }, body: { role: 'admin' } };
    },
  },
  'DELETE /workspaces/:workspace_id/members/:user_id': {
    expect: [204, 403, 403, 404, 401],
    setup: async (w) => {
      const u = await w.h.people.createUser({ email: `m${w.seq()}@example.com` });
      await w.h.people.addMember({ workspaceId: w.ws, userId: u.id, role: 'viewer' });
      return { params: { user_id: u.id } };
    },
  },
  'GET /workspaces/:workspace_id/invitations': { expect: ADMIN_READ },
  'POST /workspaces/:workspace_id/invitations': {
    expect: ADMIN_CREATE,
    setup: async (w) => ({ body: { email: `new${w.seq()}@example.com`, role: 'viewer' } }),
  },
  'DELETE /workspaces/:workspace_id/invitations/:invitation_id': {
    expect: ADMIN_DELETE,
    setup: async (w) => {
      const inv = await w.h.people.createInvitation({
        workspaceId: w.ws,
        email: `x${w.seq()}@example.com`,
        role: 'viewer',
        secretHash: hashSecret(`x${w.seq()}`),
        invitedBy: null,
        expiresAt: '2099-01-01T00:00:00.000Z',
        now: w.h.clock.now().toISOString(),
        seatLimit: null,
      });
      return { params: { invitation_id: inv.id } };
    },
  },
  'GET /workspaces/:workspace_id/sites': { expect: ANY_READ },
  'POST /workspaces/:workspace_id/sites': {
    expect: ADMIN_CREATE,
    setup: async (w) => ({ body: { name: 'New', hostnames: [`n${w.seq()}.example.com`], collection_profile: 'strict' } }),
  },
  'PATCH /sites/:site_id': {
    expect: ADMIN_CHANGE,
    setup: async (w) => ({ params: { site_id: await site(w) }, body: { name: 'Renamed' } }),
  },
  'DELETE /sites/:site_id': { expect: OWNER_ONLY, setup: async (w) => ({ params: { site_id: await site(w) }, body: { name: 'S' } }) },
  // A domain verified already: the answer comes at once, without a DNS lookup (app-api-ownership.test.ts asks DNS).
  'POST /sites/:site_id/verify': {
    expect: ADMIN_CHANGE,
    setup: async (w) => {
      const domain = `roles-${w.seq()}.com`;
      const s = await w.h.catalog.createSite({
        workspaceId: w.ws,
        name: 'V',
        hostnames: [`www.${domain}`],
        collectionProfile: 'strict',
        domainScope: domain,
      });
      await w.h.catalog.markDomainVerified(w.ws, domain);
      return { params: { site_id: s.id } };
    },
  },
  'GET /sites/:site_id': { expect: ANY_READ, setup: async (w) => ({ params: { site_id: await site(w) } }) },
  'GET /sites/:site_id/live': { expect: ANY_READ, setup: async (w) => ({ params: { site_id: await site(w) } }) },
  // the batch answers 200 to anyone signed in: each of its reads answers on its own line as it would alone (app-api-read-batch.test.ts)
  'GET /reads': { expect: SIGNED_IN, setup: async (w) => ({ query: `?r=${encodeURIComponent(`/v1/tenants?site_id=${await site(w)}`)}` }) },
  'GET /workspaces/:workspace_id/tenants': { expect: ANY_READ },
  'POST /workspaces/:workspace_id/tenants': {
    expect: ADMIN_CREATE,
    setup: async (w) => ({ body: { site_id: await site(w), slug: 'north', name: 'North' } }),
  },
  'PATCH /tenants/:tenant_id': {
    expect: ADMIN_CHANGE,
    setup: async (w) => {
      const t = await w.h.catalog.createTenant({ siteId: await site(w), slug: 'south', name: 'South' });
      return { params: { tenant_id: t.id }, body: { name: 'Southern' } };
    },
  },
  'GET /workspaces/:workspace_id/goals': { expect: ANY_READ },
  'POST /workspaces/:workspace_id/goals': {
    expect: ADMIN_CREATE,
    setup: async (w) => ({ body: { site_id: await site(w), name: 'G', type: 'PAGEVIEW_MATCH', intent: 'signup', pattern: '/thanks' } }),
  },
  'PATCH /goals/:goal_id': {
    expect: ADMIN_CHANGE,
    setup: async (w) => ({ params: { goal_id: (await goal(w)).id }, body: { name: 'Renamed' } }),
  },
  'DELETE /goals/:goal_id': { expect: ADMIN_DELETE, setup: async (w) => ({ params: { goal_id: (await goal(w)).id } }) },
  'GET /workspaces/:workspace_id/funnels': { expect: ANY_READ },
  'POST /workspaces/:workspace_id/funnels': {
    expect: ADMIN_CREATE,
    setup: async (w) => ({ body: { site_id: await site(w), name: 'F', steps: [{ page: '/pricing' }, { event: 'Signup' }] } }),
  },
  'PATCH /funnels/:funnel_id': {
    expect: ADMIN_CHANGE,
    setup: async (w) => ({ params: { funnel_id: (await funnel(w)).id }, body: { name: 'Renamed' } }),
  },
  'DELETE /funnels/:funnel_id': { expect: ADMIN_DELETE, setup: async (w) => ({ params: { funnel_id: (await funnel(w)).id } }) },
  'GET /workspaces/:workspace_id/tokens': { expect: ADMIN_READ },
  'POST /workspaces/:workspace_id/tokens': { expect: ADMIN_CREATE, setup: async () => ({ body: { scopes: ['metrics:read'] } }) },
  'POST /workspaces/:workspace_id/tokens/:token_id/revoke': {
    expect: ADMIN_CHANGE,
    setup: async (w) => ({ params: { token_id: (await w.h.token(w.ws)).id } }),
  },
  'PATCH /workspaces/:workspace_id/tokens/:token_id': {
    expect: ADMIN_CHANGE,
    setup: async (w) => ({ params: { token_id: (await w.h.token(w.ws)).id }, body: { name: 'Data warehouse sync' } }),
  },
  'POST /workspaces/:workspace_id/tokens/:token_id/rotate': {
    expect: ADMIN_CHANGE,
    setup: async (w) => ({ params: { token_id: (await w.h.token(w.ws)).id } }),
  },
  'GET /workspaces/:workspace_id/embed-keys': { expect: ADMIN_READ },
  'POST /workspaces/:workspace_id/embed-keys': {
    expect: ADMIN_CREATE,
    setup: async () => ({ body: { origins: ['https://app.example.com'] } }),
  },
  'POST /workspaces/:workspace_id/embed-keys/:key_id/revoke': {
    expect: ADMIN_CHANGE,
    setup: async (w) => {
      const key = await w.h.container.embeds!.createEmbedKey({ workspaceId: w.ws, origins: [] });
      return { params: { key_id: key.id } };
    },
  },
  'GET /sites/:site_id/shares': { expect: ADMIN_READ, setup: async (w) => ({ params: { site_id: await site(w) } }) },
  'POST /sites/:site_id/shares': {
    expect: ADMIN_CREATE,
    setup: async (w) => ({ params: { site_id: await site(w) }, body: { password: PASSWORD } }),
  },
  'POST /sites/:site_id/shares/:share_id/revoke': {
    expect: ADMIN_CHANGE,
    setup: async (w) => {
      const s = await site(w);
      const share = await w.h.container.embeds!.createShareLink({
        siteId: s,
        tenantId: null,
        slugHash: hashSecret(`share${w.seq()}`),
        passwordHash: null,
        expiresAt: null,
      });
      return { params: { site_id: s, share_id: share.id } };
    },
  },
  'GET /sites/:site_id/reports': { expect: ANY_READ, setup: async (w) => ({ params: { site_id: await site(w) } }) },
  // this harness sends no mail: every member may ask, and is told so (409)
  'POST /sites/:site_id/reports': {
    expect: [409, 409, 409, 404, 401],
    setup: async (w) => ({ params: { site_id: await site(w) }, body: { period: 'week' } }),
  },
  // an outside address's: an admin's to end, not a viewer's (whom it is hidden from, 404)
  'DELETE /reports/:subscription_id': {
    expect: [204, 204, 404, 404, 401],
    setup: async (w) => {
      const s = await site(w);
      const { subscription } = await w.h.container.reports!.subscribe({
        siteId: s,
        workspaceId: w.ws,
        tenantId: null,
        email: `r${w.seq()}@example.org`,
        period: 'week',
        userId: null,
        confirm: null,
        now: w.h.clock.now().toISOString(),
      });
      return { params: { subscription_id: subscription.id } };
    },
  },
};

async function funnel(w: World) {
  return w.h.catalog.createFunnel({
    siteId: await site(w),
    name: 'F',
    steps: [
      { kind: 'page', pattern: '/pricing' },
      { kind: 'event', name: 'Signup' },
    ],
  });
}

async function goal(w: World) {
  return w.h.catalog.createGoal({
    siteId: await site(w),
    name: 'G',
    type: 'PAGEVIEW_MATCH',
    intent: 'content',
    pattern: '/blog/*',
    filters: {},
  });
}

/**
 * The dashboard's reads (/app/api/v1/..., the read routes that name a site, and /app/api/api/v2/query and
 * .../funnel), keyed by their method and path without /app/api:
 * every member of the site's workspace reads it; a person of another workspace gets /v1's 403 for a site
 * it may not read (not the management API's 404); no session, 401. A read route served there without an
 * entry fails route-security.test.ts.
 */
const MEMBER_READ: Entry['expect'] = [200, 200, 200, 403, 401];
const siteQuery =
  (extra = '') =>
  async (w: World) => ({ query: `?site_id=${await site(w)}${extra}` });
export const DASHBOARD_READ_ROLES: Record<string, Entry> = {
  'GET /v1/metrics/timeseries': { expect: MEMBER_READ, setup: siteQuery() },
  'GET /v1/metrics/breakdown': { expect: MEMBER_READ, setup: siteQuery('&dimension=page') },
  'GET /v1/reports/overview': { expect: MEMBER_READ, setup: siteQuery() },
  'GET /v1/reports/acquisition': { expect: MEMBER_READ, setup: siteQuery() },
  'GET /v1/reports/actions': { expect: MEMBER_READ, setup: siteQuery() },
  'GET /v1/reports/content': { expect: MEMBER_READ, setup: siteQuery() },
  'GET /v1/goals/conversions': { expect: MEMBER_READ, setup: siteQuery() },
  'GET /v1/tenants': { expect: MEMBER_READ, setup: siteQuery() },
  'GET /v1/goals': { expect: MEMBER_READ, setup: siteQuery() },
  // the query API's twins: a JSON body, as at /api/v2
  'POST /api/v2/query': {
    expect: MEMBER_READ,
    setup: async (w) => ({ body: { site_id: await site(w), date_range: '7d', metrics: ['visitors'] } }),
  },
  'POST /api/v2/funnel': {
    expect: MEMBER_READ,
    setup: async (w) => ({ body: { site_id: await site(w), date_range: '7d', steps: [{ page: '/' }, { page: '/pricing' }] } }),
  },
  'GET /api/v2/funnels': { expect: MEMBER_READ, setup: siteQuery() },
};
