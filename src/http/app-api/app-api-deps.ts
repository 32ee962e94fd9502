// What the management API needs from the process: the read API's ports, the people store, a hasher,
// the resolver of domain proofs and the embed store.
import type { AppDeps } from '../../services/deps.js';
import type { PeopleDeps } from '../../services/people/people-deps.js';

export type AppApiDeps = AppDeps & Required<Pick<AppDeps, 'people' | 'hasher' | 'dns' | 'embeds'>> & PeopleDeps;

/** The deps when the process has people and a resolver (every container does); null leaves /app/api out. */
export function appApiDeps(deps: AppDeps): AppApiDeps | null {
  if (!deps.people || !deps.hasher || !deps.dns || !deps.embeds) return null;
  return { ...deps, people: deps.people, hasher: deps.hasher, dns: deps.dns, embeds: deps.embeds, publicUrl: deps.config.publicUrl };
}
