// What a panel shows when it has no numbers to show: a skeleton of its own shape while loading, the
// API's own words when it refused (locked by the site's profile, not in the plan, out of retention),
// never a blank box and never zeros in place of a refusal.
import type { ComponentChildren } from 'preact';
import type { Failure } from '../api/read.js';

export function Skeleton({ rows, label }: { rows: number; label: string }) {
  return (
    <div class="skeleton" role="status" aria-label={`Loading ${label}`}>
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} class="skeleton-row" />
      ))}
    </div>
  );
}

const TITLES: Record<string, string> = {
  REPORT_LOCKED_BY_PROFILE: 'Locked on this site',
  REPORT_NOT_AVAILABLE_FOR_REQUESTED_PERIOD: 'Not available for this period',
  RETENTION_EXCEEDED: 'Outside the data you can read',
  FORBIDDEN: 'Not available',
  RATE_LIMITED: 'Too many requests',
  HARD_CAP_REACHED: 'Usage limit reached',
  UNAUTHORIZED: 'Not signed in',
  NOT_FOUND: 'Not found',
  CONFLICT: 'Already exists',
  INVALID_PARAMS: 'Check what you entered',
  SEAT_LIMIT_REACHED: 'Every seat is in use',
  SITE_LIMIT_REACHED: 'Every site of the plan is in use',
  INVALID_SITE_HOSTNAME: 'Check the hostnames',
  SITE_SCOPE_NOT_ALLOWED: 'Not a domain that can be a scope',
  HOSTNAME_PATTERN_OUT_OF_SCOPE: 'A pattern lies outside your domains',
  SITE_SCOPE_ALREADY_CLAIMED: 'Already claimed',
  SITE_DNS_VERIFICATION_FAILED: 'The TXT record was not found',
  SITE_DNS_VERIFICATION_UNAVAILABLE: 'DNS cannot prove this domain',
  INVALID_CREDENTIALS: 'Wrong email or password',
  LAST_OWNER: 'The workspace needs an owner',
  EMAIL_NEEDED: 'Enter your email',
};

export function isLocked(failure: Failure): boolean {
  return failure.code === 'REPORT_LOCKED_BY_PROFILE';
}

/**
 * A refusal or an error, in words: a title from the code (or the caller's) and the API's own message.
 * The last default fits a read that failed; a form names its own (e.g. "Not saved").
 */
export function Problem({
  failure,
  title,
  alert = false,
  children,
}: {
  failure: Failure;
  title?: string;
  alert?: boolean;
  children?: ComponentChildren;
}) {
  const locked = isLocked(failure);
  return (
    <div
      class={`problem${locked ? ' locked' : ''}`}
      data-code={failure.code}
      role={alert || failure.status >= 500 || failure.status === 0 ? 'alert' : undefined}
    >
      <p class="problem-title">
        {locked ? <LockIcon /> : null}
        {TITLES[failure.code] ?? title ?? 'Could not load this'}
      </p>
      <p class="problem-message">{failure.message}</p>
      {children}
    </div>
  );
}

/** What a person reads where the plan does not include a part: who decides the plan (the operator). */
export const PLAN_DECIDED = "Whoever runs this footfall server sets each workspace's plan.";

/** A section the plan does not include: said plainly, with the plans that have it and who changes it. */
export function UpgradeNote({ what, plans }: { what: string; plans?: string }) {
  return (
    <div class="problem upgrade" data-code="PLAN">
      <p class="problem-title">Not in this workspace's plan</p>
      <p class="problem-message">
        {what} come with {plans ?? 'a larger plan'}. {PLAN_DECIDED}
      </p>
    </div>
  );
}

function LockIcon() {
  return (
    <svg class="icon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
      <path fill="currentColor" d="M4 7V5a4 4 0 1 1 8 0v2h1v8H3V7h1Zm2 0h4V5a2 2 0 1 0-4 0v2Z" />
    </svg>
  );
}
