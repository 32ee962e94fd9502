// The plans serveAnalytics runs for each report route: units (docs/metering.md), cache parameters and the
// builder of one payload window. Routes stay thin: parameters in, serveAnalytics(plan) out.
import { invalidParams } from '../../domain/errors.js';
import type { ActionFamily } from '../../domain/events.js';
import { reportUnits } from '../../domain/metering.js';
import { addDays, resolveContentInclude, type ResolvedRange } from '../../domain/report-range.js';
import type { AnalyticsContext, AnalyticsPlan, AnalyticsWindow } from '../analytics/serve-analytics.js';
import { parseActionKey } from '../../domain/action-key.js';
import { buildAcquisition } from './build-acquisition.js';
import { buildActions } from './build-actions.js';
import { buildContent } from './build-content.js';
import { buildGoalConversions } from './build-goal-conversions.js';
import { buildOverview } from './build-overview.js';
import { ReportKit } from './report-kit.js';

export const DEFAULT_REPORT_LIMIT = 200;

export interface ReportParams {
  limit?: number;
}

/** limit: 1 to 2000 by schema, and at most the plan's api.max_report_limit (docs/product.md §7.1). */
export function checkReportLimit(limit: number | undefined, maxReportLimit: number): void {
  if (limit !== undefined && limit > maxReportLimit) {
    throw invalidParams(`limit may be at most ${maxReportLimit} on this plan`, { parameter: 'limit', max_report_limit: maxReportLimit });
  }
}

/** action_key is parsed when the parameters are checked, so a malformed key is 422 before anything runs. */
export function checkActionKey(key: string | undefined): void {
  if (key !== undefined) parseActionKey(key);
}

function kitFor(w: AnalyticsWindow): ReportKit {
  return new ReportKit(w.reads, w.scope);
}

const goalsOf = (ctx: AnalyticsContext) => ctx.deps.catalog.listGoals(ctx.site!.id);

export async function overviewPlan(ctx: AnalyticsContext, q: ReportParams, range: ResolvedRange): Promise<AnalyticsPlan<unknown>> {
  const limit = q.limit ?? DEFAULT_REPORT_LIMIT;
  const retention = ctx.caller.policy.retention_days;
  const minAllowedFrom = retention === null ? null : addDays(range.today, -(retention - 1));
  return {
    units: reportUnits({ report: 'overview', days: range.current.days, limit, compare: range.compare !== null }),
    cacheParams: { limit },
    build: async (w) => {
      const lastEventAt = w.facts.newestEventMs === null ? null : new Date(w.facts.newestEventMs);
      return buildOverview(kitFor(w), w, { limit, minAllowedFrom, lastEventAt });
    },
  };
}

export async function acquisitionPlan(ctx: AnalyticsContext, q: ReportParams, range: ResolvedRange): Promise<AnalyticsPlan<unknown>> {
  const limit = q.limit ?? DEFAULT_REPORT_LIMIT;
  const goalsConfigured = (await goalsOf(ctx)).length > 0;
  return {
    units: reportUnits({ report: 'acquisition', days: range.current.days, limit, compare: range.compare !== null }),
    cacheParams: { limit, goalsConfigured },
    build: (w) => buildAcquisition(kitFor(w), w, { limit, goalsConfigured }),
  };
}

export async function actionsPlan(
  ctx: AnalyticsContext,
  q: ReportParams & { action_family?: ActionFamily; action_key?: string },
  range: ResolvedRange,
): Promise<AnalyticsPlan<unknown>> {
  const limit = q.limit ?? DEFAULT_REPORT_LIMIT;
  const goalsConfigured = (await goalsOf(ctx)).length > 0;
  const action = q.action_key === undefined ? null : parseActionKey(q.action_key);
  const family = q.action_family ?? null;
  return {
    units: reportUnits({ report: 'actions', days: range.current.days, limit, compare: range.compare !== null }),
    cacheParams: { limit, goalsConfigured, family, action_key: q.action_key ?? null },
    build: (w) => buildActions(kitFor(w), w, { limit, family, action, goalsConfigured }),
  };
}

export function contentPlan(ctx: AnalyticsContext, q: ReportParams & { include?: string }, range: ResolvedRange): AnalyticsPlan<unknown> {
  const include = resolveContentInclude({ include: q.include, days: range.current.days, compare: range.compare !== null });
  const limit = q.limit ?? DEFAULT_REPORT_LIMIT;
  return {
    units: reportUnits({ report: 'content', days: range.current.days, limit, compare: range.compare !== null, include }),
    // rule 4: limit has no effect in summary, so it is not part of the summary's cache key
    cacheParams: include === 'summary' ? { include } : { include, limit },
    include,
    build: (w) => buildContent(kitFor(w), w, { include, limit }),
  };
}

export async function goalConversionsPlan(ctx: AnalyticsContext, q: ReportParams, range: ResolvedRange): Promise<AnalyticsPlan<unknown>> {
  const limit = q.limit ?? DEFAULT_REPORT_LIMIT;
  const goals = await goalsOf(ctx);
  return {
    units: reportUnits({ report: 'goals_conversions', days: range.current.days, limit, compare: range.compare !== null }),
    cacheParams: { limit, goals: goals.map((g) => [g.id, g.type, g.pattern, g.filters, g.updatedAt]) },
    build: (w) => buildGoalConversions(kitFor(w), w, goals),
  };
}
