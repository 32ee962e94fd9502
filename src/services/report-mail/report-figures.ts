// A report's figures, read through /api/v2/query's own service (serveQuery) with the same bodies a
// person would post, so every number in the mail is what the query API answers for the period
// (docs/decisions/reports.md). The reads are the workspace's own, as the dashboard's: unmetered.
import { randomUUID } from 'node:crypto';
import { ApiError } from '../../domain/errors.js';
import { type DuePeriod, previousPeriod } from '../../domain/report-periods.js';
import { parseQueryBody } from '../../domain/query-api/query-body.js';
import type { Site, Tenant, Workspace } from '../../ports/catalog-store.js';
import type { AnalyticsContext } from '../analytics/serve-analytics.js';
import { personCaller } from '../caller.js';
import type { AppDeps } from '../deps.js';
import { requestMeter } from '../metering.js';
import { serveQuery } from '../query-api/serve-query.js';
import {
  REPORT_TOP_ROWS,
  type ReportData,
  type ReportFigure,
  type ReportGoalRow,
  type ReportRow,
  type ReportTotals,
} from './report-data.js';

export const REPORT_TOTALS = ['visitors', 'visits', 'pageviews', 'bounce_rate', 'visit_duration'] as const;

/** What a report is of: a site, or one tenant of it, over a due period. */
export interface ReportSubject {
  workspace: Workspace;
  site: Site;
  tenant: Tenant | null;
  due: DuePeriod;
}

/**
 * The /api/v2/query bodies a report asks, by part: a test posts the same bodies over HTTP and finds
 * the same numbers. `goals` is asked only when the site has goals.
 */
export function reportQueries(s: Pick<ReportSubject, 'site' | 'tenant' | 'due'>) {
  const base = {
    site_id: s.site.id,
    date_range: [s.due.from, s.due.to],
    ...(s.tenant ? { tenant_id: s.tenant.id } : {}),
  };
  const previous = previousPeriod(s.due);
  const top = (dimension: string) => ({
    ...base,
    metrics: ['visitors'],
    dimensions: [dimension],
    order_by: [['visitors', 'desc']],
    pagination: { limit: REPORT_TOP_ROWS },
  });
  return {
    totals: { ...base, metrics: [...REPORT_TOTALS], include: { compare: [previous.from, previous.to] } },
    pages: top('event:page'),
    sources: top('visit:source'),
    countries: top('visit:country_name'),
    goals: {
      ...base,
      metrics: ['visitors', 'events', 'conversion_rate'],
      dimensions: ['event:goal'],
      order_by: [['visitors', 'desc']],
    },
  };
}

interface QueryAnswer {
  results: { dimensions: (string | number)[]; metrics: number[]; comparison?: { metrics: number[]; change: (number | null)[] } }[];
}

/** The figures of a report, and the time its reads took (the benchmark's read cost per report). */
export async function gatherReport(
  deps: AppDeps,
  subject: ReportSubject,
): Promise<{ data: Omit<ReportData, 'dashboardUrl' | 'unsubscribeUrl'>; readMs: number }> {
  const started = performance.now();
  const caller = personCaller(subject.workspace);
  const ask = async (body: object, optional = false): Promise<QueryAnswer | null> => {
    const arrivedAt = deps.clock.now();
    const { meter, charge } = requestMeter(
      { ledger: deps.ledger, workspaceId: subject.workspace.id, policy: caller.api, arrivedAt },
      'unmetered',
    );
    const ctx: AnalyticsContext = {
      routeUrl: '/api/v2/query',
      deps,
      caller,
      requestId: `report-${randomUUID()}`,
      arrivedAt,
      site: subject.site,
      tenant: subject.tenant,
      meter,
      charge,
    };
    try {
      return JSON.parse(await serveQuery({ ctx, body: parseQueryBody(body), csv: false })) as QueryAnswer;
    } catch (err) {
      // a breakdown the site's collection profile does not store (409) is left out of the mail, not a failure
      if (optional && err instanceof ApiError && err.status === 409) return null;
      throw err;
    }
  };
  const q = reportQueries(subject);
  const hasGoals = (await deps.catalog.listGoals(subject.site.id)).length > 0;
  const [totals, pages, sources, countries, goals] = await Promise.all([
    ask(q.totals),
    ask(q.pages, true),
    ask(q.sources, true),
    ask(q.countries, true),
    hasGoals ? ask(q.goals, true) : null,
  ]);
  const row = totals!.results[0];
  const figure = (i: number): ReportFigure => ({
    value: row?.metrics[i] ?? 0,
    previous: row?.comparison?.metrics[i] ?? null,
    change: row?.comparison?.change[i] ?? null,
  });
  const figures = Object.fromEntries(REPORT_TOTALS.map((m, i) => [m, figure(i)])) as unknown as ReportTotals;
  const rows = (a: QueryAnswer | null): ReportRow[] =>
    (a?.results ?? []).map((r) => ({ name: String(r.dimensions[0]), visitors: r.metrics[0] }));
  const goalRows: ReportGoalRow[] = (goals?.results ?? []).map((r) => ({
    goal: String(r.dimensions[0]),
    visitors: r.metrics[0],
    events: r.metrics[1],
    conversionRate: r.metrics[2],
  }));
  return {
    data: {
      siteName: subject.site.name,
      tenantName: subject.tenant?.name ?? null,
      period: subject.due,
      timezone: subject.site.timezone,
      totals: figures,
      pages: rows(pages),
      sources: rows(sources),
      countries: rows(countries),
      goals: goalRows,
    },
    readMs: performance.now() - started,
  };
}
