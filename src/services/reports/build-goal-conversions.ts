// The goal conversions payload (spec "Goal conversions payload", DESIGN 4 and 8 "Goals"), counted
// in the route's counting window: from collection_profile_effective_at when the range crosses it.
// Goals appear in the catalog's order; a window with nothing to count gives zeros.
import type { Goal } from '../../ports/catalog-store.js';
import { compileGoalMatches } from './queries/goal-query.js';
import { toInt } from './queries/report-query-runner.js';
import type { PayloadWindow, ReportKit } from './report-kit.js';

export async function buildGoalConversions(kit: ReportKit, w: PayloadWindow, goals: readonly Goal[]) {
  const window = w.count;
  if (!window) {
    return { goals: goals.map((g) => ({ goal_id: g.id, conversions: 0, unique_sessions: 0, total_sessions: 0, last_seen_at: null })) };
  }
  const [total, rows] = await Promise.all([
    kit.total(window, ['sessions']),
    goals.length ? kit.rows((d) => compileGoalMatches(d, kit.scope, window, goals)) : Promise.resolve([{}]),
  ]);
  const r: Record<string, unknown> = rows[0] ?? {};
  return {
    goals: goals.map((g, i) => {
      const last = r[`l${i}`];
      return {
        goal_id: g.id,
        conversions: toInt(r[`c${i}`]),
        unique_sessions: toInt(r[`s${i}`]),
        total_sessions: total.values.sessions,
        last_seen_at: last === null || last === undefined ? null : new Date(toInt(last)).toISOString(),
      };
    }),
  };
}
