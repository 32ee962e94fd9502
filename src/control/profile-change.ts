// What `site update --profile/--profile-effective-at` may do to a site's (profile, effective_at).
// A site's pair means "this profile from E on, the other one before E" (null E: always), and events
// are stamped with the profile in force at their time when they are stored. A change is therefore
// prospective only: it may start now or later, never earlier, or the pair would claim that events
// already stored under the old profile were collected under the new one (the spec: a profile change
// never backfills older events). Pure; docs/decisions/operating.md.
import { CatalogError } from '../ports/catalog-store.js';
import type { Profile } from '../domain/plans.js';

export interface ProfileState {
  profile: Profile;
  /** ISO instant or null */
  effectiveAt: string | null;
}

/**
 * The new state, or the current one when nothing changes. `effectiveAt` must already be a checked
 * UTC instant. Throws CatalogError INVALID (an instant in the past, or moving a switch that already
 * happened) or CONFLICT (switching back while a scheduled switch is still pending).
 */
export function changeProfile(
  current: ProfileState,
  patch: { profile?: Profile; effectiveAt?: string | null },
  nowMs: number,
): ProfileState {
  const target = patch.profile ?? current.profile;
  const pending = current.effectiveAt !== null && Date.parse(current.effectiveAt) > nowMs;
  const at = patch.effectiveAt ?? null;
  if (at !== null && Date.parse(at) < nowMs)
    throw new CatalogError(
      'INVALID',
      `profile effective-at ${at} is in the past: a profile change applies from now or later, never to events already stored (they were kept under the profile in force then)`,
    );

  if (target !== current.profile) {
    if (pending)
      throw new CatalogError(
        'CONFLICT',
        `a switch to ${current.profile} is scheduled for ${current.effectiveAt}; move it with --profile-effective-at, or change the profile once it has taken effect`,
      );
    return { profile: target, effectiveAt: at ?? new Date(nowMs).toISOString() };
  }
  if (at === null) return current;
  if (!pending)
    throw new CatalogError(
      'INVALID',
      `the profile is already ${current.profile}${current.effectiveAt ? ` since ${current.effectiveAt}` : ''}; --profile-effective-at alone only moves a switch that has not happened yet`,
    );
  return { profile: current.profile, effectiveAt: at };
}
