// Input rules of catalog writes. Pure; every failure is a CatalogError with a message naming the field.
import {
  CatalogError,
  GOAL_INTENTS,
  type GoalFilters,
  type GoalIntent,
  type GoalType,
  type SiteStatus,
  type TenantStatus,
} from '../ports/catalog-store.js';
import { PLAN_IDS, type PlanId, type Profile } from '../domain/plans.js';
import { TOKEN_SCOPES, type TokenScope } from '../domain/access.js';
import { unstorableReason } from '../domain/storable-text.js';
import { canonicalTimeZone, TIME_ZONE_HINT } from '../domain/canonical-time-zone.js';

const LABEL_RE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const SLUG_RE = /^[a-z0-9](?:[a-z0-9_-]{0,62})$/;
const ISO_INSTANT_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;
const MAX_NAME = 200;
const MAX_PATTERN = 1000;
const MAX_FILTER = 1000;
export const GOAL_FILTER_KEYS = ['action_id', 'action_target_host', 'form_id', 'form_action_path'] as const;

function invalid(message: string): never {
  throw new CatalogError('INVALID', message);
}

/**
 * A site hostname: a DNS name in lower case (upper case is folded), labels of 1-63 [a-z0-9-] not
 * starting or ending with '-', at least one dot (or exactly 'localhost'), at most 253 characters,
 * and a last label that is not all digits (IP addresses are not site hostnames). Returns it lower-cased.
 */
export function normalizeHostname(input: unknown): string {
  if (typeof input !== 'string') throw new CatalogError('INVALID_SITE_HOSTNAME', 'hostname must be a string');
  const host = input.toLowerCase();
  const bad = (why: string): never => {
    throw new CatalogError('INVALID_SITE_HOSTNAME', `hostname "${input}" is malformed: ${why}`);
  };
  if (host.length === 0) bad('it is empty');
  if (host.length > 253) bad('longer than 253 characters');
  if (host === 'localhost') return host;
  const labels = host.split('.');
  if (labels.length < 2) bad('it needs at least one dot (or must be "localhost")');
  for (const label of labels) {
    if (label.length === 0) bad('empty label');
    if (label.length > 63) bad('a label is longer than 63 characters');
    if (!LABEL_RE.test(label)) bad('labels are letters, digits and inner hyphens only');
  }
  if (/^\d+$/.test(labels[labels.length - 1])) bad('the last label is all digits (IP addresses are not hostnames)');
  return host;
}

/** Lower-cased, validated and de-duplicated (first occurrence keeps its place); at least one. */
export function normalizeHostnames(input: unknown): string[] {
  if (!Array.isArray(input) || input.length === 0) throw new CatalogError('INVALID_SITE_HOSTNAME', 'a site needs at least one hostname');
  return [...new Set(input.map(normalizeHostname))];
}

export function checkName(what: string, input: unknown): string {
  if (typeof input !== 'string' || input.trim() === '') invalid(`${what} must be a non-empty string`);
  const name = input.trim();
  if (name.length > MAX_NAME) invalid(`${what} must be at most ${MAX_NAME} characters`);
  if (/[\u0000-\u001f\u007f]/.test(name)) invalid(`${what} must not contain control characters`);
  storable(what, name);
  return name;
}

/** Free text the store keeps as written (names, goal patterns and filters), whoever writes it: the CLI, a use-case. */
function storable(what: string, text: string): void {
  const reason = unstorableReason(text);
  if (reason !== null) invalid(`${what} ${reason}`);
}

export function checkOneOf<T extends string>(what: string, input: unknown, allowed: readonly T[]): T {
  if (typeof input !== 'string' || !allowed.includes(input as T)) invalid(`${what} must be one of ${allowed.join(', ')}`);
  return input as T;
}

export const checkPlan = (v: unknown): PlanId => checkOneOf('plan', v, PLAN_IDS);
export const checkProfile = (v: unknown): Profile => checkOneOf('collection profile', v, ['strict', 'extended'] as const);
export const checkSiteStatus = (v: unknown): SiteStatus => checkOneOf('site status', v, ['ACTIVE', 'SUSPENDED'] as const);

/** A site's time zone in the one spelling it is stored in (domain/canonical-time-zone.ts). */
export function checkTimeZone(input: unknown): string {
  const zone = canonicalTimeZone(input);
  if (zone !== null) return zone;
  // JSON.stringify shows a NUL or a trailing space that plain quotes would hide
  const given = typeof input === 'string' ? JSON.stringify(input.slice(0, 80)) : 'this value';
  throw new CatalogError('INVALID', `timezone ${given} is not a time zone this server knows: send ${TIME_ZONE_HINT}`, {
    field: 'timezone',
  });
}
export const checkTenantStatus = (v: unknown): TenantStatus => checkOneOf('tenant status', v, ['ACTIVE', 'INACTIVE'] as const);
export const checkGoalType = (v: unknown): GoalType => checkOneOf('goal type', v, ['PAGEVIEW_MATCH', 'EVENT_MATCH'] as const);
export const checkGoalIntent = (v: unknown): GoalIntent => checkOneOf('goal intent', v, GOAL_INTENTS);

/** An ISO 8601 instant with a zone (Z or offset); returned as UTC `…Z`. null/undefined stay null. */
export function checkInstant(what: string, input: unknown): string | null {
  if (input === null || input === undefined) return null;
  if (typeof input !== 'string' || !ISO_INSTANT_RE.test(input) || Number.isNaN(Date.parse(input)) || !realDay(input))
    invalid(`${what} must be an ISO 8601 instant with a time zone, e.g. 2025-01-31T00:00:00Z`);
  return new Date(input).toISOString();
}

/** Date.parse rolls 2025-02-30 over into March; a calendar day must exist as written. */
function realDay(iso: string): boolean {
  const [y, m, d] = iso.slice(0, 10).split('-').map(Number);
  const day = new Date(Date.UTC(y, m - 1, d));
  return day.getUTCMonth() === m - 1 && day.getUTCDate() === d;
}

/** Tenant slugs route requests: lower-case letters, digits, '-' and '_', starting with a letter or digit, 1-63. */
export function checkSlug(input: unknown): string {
  if (typeof input !== 'string' || !SLUG_RE.test(input))
    invalid('tenant slug must be 1-63 lower-case letters, digits, "-" or "_", starting with a letter or digit');
  return input;
}

export function checkScopes(input: unknown): TokenScope[] {
  if (!Array.isArray(input) || input.length === 0) invalid(`scopes must name at least one of ${TOKEN_SCOPES.join(', ')}`);
  for (const s of input) if (!TOKEN_SCOPES.includes(s)) invalid(`unknown scope "${String(s)}"; scopes are ${TOKEN_SCOPES.join(', ')}`);
  return TOKEN_SCOPES.filter((s) => input.includes(s));
}

/** null/undefined = no allowlist; otherwise a non-empty list of ids, de-duplicated. */
export function checkIdList(what: string, input: unknown): string[] | null {
  if (input === null || input === undefined) return null;
  if (!Array.isArray(input) || input.length === 0) invalid(`${what} allowlist must name at least one id (leave it out to allow all)`);
  for (const id of input) if (typeof id !== 'string' || id === '') invalid(`${what} allowlist holds an empty or non-string id`);
  return [...new Set(input as string[])];
}

export interface GoalDefinition {
  name: string;
  type: GoalType;
  intent: GoalIntent;
  pattern: string;
  filters: GoalFilters;
}

/**
 * PAGEVIEW_MATCH patterns are matched against path_canon, which always starts with '/', so a
 * pattern must start with '/' or '*' to be able to match at all; filters belong to EVENT_MATCH only.
 */
export function checkGoal(input: { name: unknown; type: unknown; intent: unknown; pattern: unknown; filters?: unknown }): GoalDefinition {
  const name = checkName('goal name', input.name);
  const type = checkGoalType(input.type);
  const intent = checkGoalIntent(input.intent);
  const pattern = input.pattern;
  if (typeof pattern !== 'string' || pattern === '') invalid('goal pattern must be a non-empty string');
  if (pattern.length > MAX_PATTERN) invalid(`goal pattern must be at most ${MAX_PATTERN} characters`);
  storable('goal pattern', pattern);
  if (type === 'PAGEVIEW_MATCH' && !/^[/*]/.test(pattern))
    invalid('a PAGEVIEW_MATCH pattern is a page path: it must start with "/" (or "*")');
  const raw = input.filters ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) invalid('goal filters must be an object');
  const filters: GoalFilters = {};
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if (!(GOAL_FILTER_KEYS as readonly string[]).includes(key))
      invalid(`unknown goal filter "${key}"; filters are ${GOAL_FILTER_KEYS.join(', ')}`);
    if (typeof value !== 'string' || value === '' || value.length > MAX_FILTER)
      invalid(`goal filter ${key} must be a non-empty string of at most ${MAX_FILTER} characters`);
    storable(`goal filter ${key}`, value);
    filters[key as keyof GoalFilters] = value;
  }
  if (type === 'PAGEVIEW_MATCH' && Object.keys(filters).length > 0) invalid('goal filters apply to EVENT_MATCH goals only');
  return { name, type, intent, pattern, filters };
}
