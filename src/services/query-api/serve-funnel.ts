// POST /api/v2/funnel after the HTTP pipeline (caller, rate limit, scope, site and tenant access, site
// status), in the order the query API keeps (docs/decisions/funnels.md):
//
//   body checked whole (422 naming the field) -> a saved funnel's steps (422 funnel_id when the site
//   has none of that id) -> the profile (409 for what strict does not store) -> date_range in the
//   site's zone -> retention 422 RETENTION_EXCEEDED, max_range_days 422 -> hard cap 402 (ctx.meter
//   reserves) -> the engine's read under the query timeout (EngineError -> 503, nothing charged)
//   -> commit -> the body.
//
// Units are a query's with one dimension per step (docs/metering.md).
import { invalidParams } from '../../domain/errors.js';
import { type FunnelStep, funnelResults, stepJson } from '../../domain/funnels.js';
import { queryUnits } from '../../domain/metering.js';
import type { FunnelBody } from '../../domain/query-api/funnel-body.js';
import { isoInstant } from '../../domain/report-range.js';
import type { AnalyticsContext } from '../analytics/serve-analytics.js';
import { checkProfile, filterGroups, goalsNamed, namesGoal, scopeOf, withDeadline, zonedRead } from './query-read-kit.js';

/** The steps of the body, or of the saved funnel it names (of this site only: another's is as unknown as none). */
async function stepsOf(ctx: AnalyticsContext, body: FunnelBody): Promise<{ steps: FunnelStep[]; name: string | null }> {
  if (body.steps) return { steps: body.steps, name: null };
  const saved = await ctx.deps.catalog.getFunnel(body.funnelId!);
  if (!saved || saved.siteId !== ctx.site!.id)
    throw invalidParams(
      'funnel_id: this site has no saved funnel of that id; list them with GET /app-api/workspaces/{id}/funnels or `footfall funnel list`',
      {
        field: 'funnel_id',
      },
    );
  return { steps: saved.steps, name: saved.name };
}

/** The answer's JSON text: {steps, meta, query}. */
export async function serveFunnel(ctx: AnalyticsContext, body: FunnelBody): Promise<string> {
  const { deps } = ctx;
  const site = ctx.site!;
  const { steps, name } = await stepsOf(ctx, body);
  checkProfile(ctx, filterGroups(body.filters));
  const goals = await goalsNamed(ctx, namesGoal(body.filters));
  const { engine, version, zone, window } = await zonedRead(ctx, body.dateRange);
  const units = queryUnits({ days: window.days, dimensions: steps.length, hourly: false, compare: false });

  const { value, meta } = await ctx.meter(units, async () => {
    const timeoutMs = deps.config.queryTimeoutMs;
    const req = {
      scope: scopeOf(ctx, body.traffic),
      window: { startMs: window.startMs, endMs: window.endMs },
      steps,
      filters: body.filters,
      goals,
    };
    return funnelResults(steps, await withDeadline(engine.funnelSteps(req, { timeoutMs, asOf: version }), timeoutMs));
  });
  const query = {
    site_id: site.id,
    date_range: [isoInstant(window.startMs), isoInstant(window.endMs - 1)],
    ...(body.funnelId ? { funnel_id: body.funnelId, name } : {}),
    steps: steps.map(stepJson),
    ...(body.tenantId ? { tenant_id: body.tenantId } : {}),
    traffic: body.traffic,
  };
  return JSON.stringify({ steps: value, meta: { request_id: ctx.requestId, ...meta, timezone: zone }, query });
}
