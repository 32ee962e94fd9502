// The rules route-security.test.ts holds every registered route to, decided route by route: what each
// /v1 family demands, the dashboard surface and the embed name of each read, the routes anyone may call.
// A route added tomorrow fails that suite until it is given its line here.
import type { RouteFamily, TokenScope } from '../../../src/domain/access.js';
import type { EmbedRoute } from '../../../src/domain/embeds.js';
import type { DashboardSurface } from '../../../src/domain/plans.js';

/** What each route family demands. A new family fails to compile here until it is given its rules. */
export const FAMILIES: Record<RouteFamily, { scopes: readonly TokenScope[]; starter: boolean }> = {
  me: { scopes: ['metrics:read'], starter: true },
  sites: { scopes: ['metrics:read'], starter: true },
  usage: { scopes: ['usage:read', 'metrics:read'], starter: true },
  metrics: { scopes: ['metrics:read'], starter: true },
  reports: { scopes: ['metrics:read'], starter: false },
  goals: { scopes: ['metrics:read'], starter: false },
  tenants: { scopes: ['metrics:read'], starter: false },
};
export const ALL_SCOPES: readonly TokenScope[] = ['metrics:read', 'usage:read'];

/**
 * The dashboard surface each route draws (a plan without it refuses it on the dashboard), decided one by
 * one: a new route fails until it is given one. null: every dashboard may read it.
 */
export const SURFACES: Record<string, DashboardSurface | null> = {
  '/v1/me': null,
  '/v1/sites': null,
  '/v1/usage/current': null,
  '/v1/usage/history': null,
  '/v1/metrics/timeseries': 'overview',
  '/v1/metrics/breakdown': 'overview',
  '/v1/reports/overview': 'overview',
  '/v1/reports/content': 'content',
  '/v1/reports/acquisition': 'acquisition',
  '/v1/reports/actions': 'actions',
  '/v1/goals': 'goals',
  '/v1/goals/conversions': 'goals',
  '/v1/tenants': 'tenants',
};

/**
 * The name each route has for embed tokens and share links (an embed token's `routes` claim), decided one
 * by one: a new route fails until it is given one. null: no embed or share link reads it.
 */
export const EMBEDS: Record<string, EmbedRoute | null> = {
  '/v1/me': null,
  '/v1/sites': null,
  '/v1/usage/current': null,
  '/v1/usage/history': null,
  '/v1/tenants': null,
  '/v1/metrics/timeseries': 'timeseries',
  '/v1/metrics/breakdown': 'breakdown',
  '/v1/reports/overview': 'overview',
  '/v1/reports/content': 'content',
  '/v1/reports/acquisition': 'acquisition',
  '/v1/reports/actions': 'actions',
  '/v1/goals': 'goals',
  '/v1/goals/conversions': 'goals',
};

/**
 * The read batches outside /v1 and /app/api, and the strategy that admits each (the one its reads are
 * admitted by), decided one by one: the embed page's (embed tokens only) and a share link's.
 */
export const READ_BATCHES: Record<string, { strategy: string; security: Record<string, string[]>[] }> = {
  '/embed/api/reads': { strategy: 'embed', security: [{ embedToken: [] }] },
  '/share/:slug/api/reads': { strategy: 'share', security: [{ shareLink: [] }] },
};

/** Routes anyone may call, decided one by one; a new unauthenticated route fails until it is added. */
export const PUBLIC_ROUTES = [
  'GET /healthz',
  'HEAD /healthz',
  'GET /openapi.json',
  'POST /api/event',
  'OPTIONS /api/event',
  'GET /js/script.js',
  // the docs page: @fastify/swagger-ui's page, its files and the document it shows
  'GET /docs',
  'GET /docs/json',
  'GET /docs/yaml',
  'GET /docs/static/index.html',
  'GET /docs/static/swagger-initializer.js',
  'GET /docs/static/*',
  'HEAD /docs/static/*',
  // the browser half: `/` points at it; its pages answer one HTML shell that holds no data (the page then
  // reads with a session cookie or a bearer, each checked by the routes it calls), and its hashed files
  'GET /',
  'GET /app',
  'GET /app/sites/:site_id',
  'GET /app/invite/:secret',
  'GET /app/reset/:secret',
  'GET /app/sign-in/:secret',
  'GET /app/settings/:workspace_id',
  'GET /app/settings/:workspace_id/:section',
  'GET /app/account',
  'GET /embed',
  'GET /app/assets/:file',
  // a share link's page (the shell, saying whether the link is open, locked or gone) and its password
  // (throttled per link and address like signing in)
  'GET /share/:slug',
  'POST /share/:slug/api/session',
  // a report subscriber's two links (report-link-pages.ts): the link is the credential (a 190-bit secret
  // stored hashed, or an HMAC of the subscription); a GET only shows a button, the POST acts
  'GET /app/reports/confirm/:secret',
  'POST /app/reports/confirm/:secret',
  'GET /app/reports/unsubscribe/:token',
  'POST /app/reports/unsubscribe/:token',
  // the management API: its document, and what a person does before having a session (signing in,
  // asking for a reset: the same answer whether or not the email is known; every password and link
  // secret guessed counts in one throttle per email and address, guess-throttle.ts)
  'GET /app/api/openapi.json',
  'POST /app/api/session',
  // the second step of a sign-in with two-factor on: its challenge (a 256-bit secret, five minutes, used
  // once) is the credential, and every code counts in the same throttle
  'POST /app/api/session/second-step',
  'POST /app/api/password-reset',
  'POST /app/api/password-reset/accept',
  'POST /app/api/invitations/accept',
  'POST /app/api/invitations/preview',
  'POST /app/api/sign-in-links/accept',
].sort();

/** The /v1 routes registered today: a collector that finds fewer is broken. */
export const V1_ROUTES_TODAY = 13;

export const OTHER_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;

export interface Registered {
  method: string;
  url: string;
  authenticated: boolean;
  /** the authentication strategy the pipeline registered it with (define-route.ts), if any */
  strategy?: string;
  security?: unknown;
  /** left out of /openapi.json */
  hidden: boolean;
}
