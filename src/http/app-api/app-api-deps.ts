// What the management API needs from the process: the read API's ports, the people store and a hasher.
import type { AppDeps } from '../../services/deps.js';
import type { PeopleDeps } from '../../services/people/people-deps.js';

export type AppApiDeps = AppDeps & Required<Pick<AppDeps, 'people' | 'hasher'>> & PeopleDeps;

/** The deps when the process has people (every container does); null leaves /app/api out. */
export function appApiDeps(deps: AppDeps): AppApiDeps | null {
  if (!deps.people || !deps.hasher) return null;
  return { ...deps, people: deps.people, hasher: deps.hasher, publicUrl: deps.config.publicUrl };
}
