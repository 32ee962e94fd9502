// reportRoute: the route of one report (/v1/reports/* and /v1/goals/conversions). What the report
// routes share is stated here once: the metrics:read scope, the site rule, the statuses, limit at most
// api.max_report_limit, and a handler that runs the report's plan through serveAnalytics. A route file
// gives only what is its own: url, operation, schemas, any further parameter rule, and the plan.
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { RouteFamily } from '../../domain/access.js';
import type { ServedRoute } from '../../domain/availability.js';
import type { DashboardSurface } from '../../domain/plans.js';
import type { ResolvedRange } from '../../domain/report-range.js';
import { serveAnalytics, type AnalyticsContext, type AnalyticsPlan } from '../../services/analytics/serve-analytics.js';
import { checkReportLimit } from '../../services/reports/report-kit.js';
import { defineRoute, RawJson, type AnyRoute } from '../pipeline/define-route.js';
import { reportEnvelope } from '../schemas/analytics.js';
import type { ReportQuery } from '../schemas/reports.js';

type ReportName = Extract<ServedRoute, 'overview' | 'acquisition' | 'actions' | 'content' | 'goals'>;

/**
 * Goal conversions belong to the goals family and tag; the other reports to the reports family. Each
 * report is the dashboard surface of its name.
 */
const LISTED: Record<ReportName, { family: RouteFamily; tag: string; surface: DashboardSurface }> = {
  overview: { family: 'reports', tag: 'Reports', surface: 'overview' },
  acquisition: { family: 'reports', tag: 'Reports', surface: 'acquisition' },
  actions: { family: 'reports', tag: 'Reports', surface: 'actions' },
  content: { family: 'reports', tag: 'Reports', surface: 'content' },
  goals: { family: 'goals', tag: 'Goals', surface: 'goals' },
};

export interface ReportRouteSpec<Q extends TObject, P extends TSchema> {
  url: string;
  operationId: string;
  summary: string;
  description: string;
  /** the availability route of the report; it also names the payload in the envelope's description */
  report: ReportName;
  querystring: Q;
  payload: P;
  /** parameter rules beyond the limit's; throw INVALID_PARAMS */
  check?(query: Static<Q>): void;
  /** the report module's plan: units, cache parameters and the builder of one payload */
  plan(ctx: AnalyticsContext, query: Static<Q>, range: ResolvedRange): AnalyticsPlan<Static<P>> | Promise<AnalyticsPlan<Static<P>>>;
}

/** Q: every report reads the common analytics parameters and limit; P: the payload its plan builds. */
export function reportRoute<Q extends TObject<typeof ReportQuery.properties>, P extends TSchema>(spec: ReportRouteSpec<Q, P>): AnyRoute {
  const { family, tag, surface } = LISTED[spec.report];
  return defineRoute({
    url: spec.url,
    operationId: spec.operationId,
    family,
    scopes: ['metrics:read'],
    surface,
    // each report is the embed route of its name (goal conversions: goals)
    embed: spec.report,
    tags: [tag],
    summary: spec.summary,
    description: spec.description,
    querystring: spec.querystring,
    response: reportEnvelope(spec.payload, `Report envelope with ${spec.report} payload`),
    errors: [402, 409, 503],
    site: { inactive: 'reject', tenantRequiredForRestrictedToken: true },
    check(query, { caller }) {
      checkReportLimit(query.limit, caller.policy.max_report_limit);
      spec.check?.(query);
    },
    async handler(ctx) {
      return new RawJson(
        await serveAnalytics(ctx, {
          route: spec.report,
          query: ctx.query,
          plan: (range) => spec.plan(ctx, ctx.query, range),
        }),
      );
    },
  });
}
