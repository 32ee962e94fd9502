// The goal conversions report: its plan (units, cache parameters) and its payload (docs/api.md;
// docs/product.md §4.10, §8.5), counted in the route's counting window: from
// collection_profile_effective_at when the range crosses it. Goals appear in the catalog's order; a
// window with nothing to count gives zeros.
import { reportUnits } from '../../domain/metering.js';
import type { ResolvedRange } from '../../domain/report-range.js';
import type { Goal } from '../../ports/catalog-store.js';
import type { AnalyticsContext, AnalyticsPlan } from '../analytics/serve-analytics.js';
import { DEFAULT_REPORT_LIMIT, goalsOf, kitFor, type PayloadWindow, type ReportKit, type ReportParams } from './report-kit.js';

export type GoalConversionsReport = Awaited<ReturnType<typeof buildGoalConversions>>;

export async function goalConversionsPlan(
  ctx: AnalyticsContext,
  q: ReportParams,
  range: ResolvedRange,
): Promise<AnalyticsPlan<GoalConversionsReport>> {
  const limit = q.limit ?? DEFAULT_REPORT_LIMIT;
  const goals = await goalsOf(ctx);
  return {
    units: reportUnits({ report: 'goals_conversions', days: range.current.days, limit, compare: range.compare !== null }),
    cacheParams: { limit, goals: goals.map((g) => [g.id, g.type, g.pattern, g.filters, g.updatedAt]) },
    build: (w) => buildGoalConversions(kitFor(w), w, goals),
  };
}

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
