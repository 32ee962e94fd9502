// The goal conversions payload (docs/api.md; docs/product.md §4.10, §8.5), counted
// in the route's counting window: from collection_profile_effective_at when the range crosses it.
// Goals appear in the catalog's order; a window with nothing to count gives zeros.
import type { Goal } from '../../ports/catalog-store.js';
import type { PayloadWindow, ReportKit } from './report-kit.js';

export async function buildGoalConversions(kit: ReportKit, w: PayloadWindow, goals: readonly Goal[]) {
  const window = w.count;
  if (!window) {
    return { goals: goals.map((g) => ({ goal_id: g.id, conversions: 0, unique_sessions: 0, total_sessions: 0, last_seen_at: null })) };
  }
  const [total, matches] = await Promise.all([
    kit.total(window, ['sessions']),
    goals.length ? kit.reads.goalMatches({ scope: kit.scope, window, goals }) : Promise.resolve([]),
  ]);
  return {
    goals: goals.map((g, i) => ({
      goal_id: g.id,
      conversions: matches[i].conversions,
      unique_sessions: matches[i].sessions,
      total_sessions: total.values.sessions,
      last_seen_at: matches[i].lastMs === null ? null : new Date(matches[i].lastMs!).toISOString(),
    })),
  };
}
