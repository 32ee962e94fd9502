// What one mailed report says (docs/decisions/reports.md): the figures of /api/v2/query for the
// period, each beside the period before, and the top rows of four breakdowns. gatherReport
// (report-figures.ts) reads them; reportMessage (report-message.ts) writes them as a mail.
import type { DuePeriod } from '../../domain/report-periods.js';

/** One metric: its value, the period before's, and the change as /api/v2/query's comparison gives it. */
export interface ReportFigure {
  value: number;
  /** null: no comparison could be read */
  previous: number | null;
  /** percent change (bounce_rate: the difference in points); null where /api/v2/query gives none */
  change: number | null;
}

export interface ReportTotals {
  visitors: ReportFigure;
  visits: ReportFigure;
  pageviews: ReportFigure;
  /** percent, 0-100 */
  bounce_rate: ReportFigure;
  /** seconds */
  visit_duration: ReportFigure;
}

/** A breakdown's row: a page path, a source, a country's name. */
export interface ReportRow {
  name: string;
  visitors: number;
}

export interface ReportGoalRow {
  goal: string;
  visitors: number;
  events: number;
  /** percent of the period's visitors, as /api/v2/query's conversion_rate */
  conversionRate: number;
}

export interface ReportData {
  /** the site's name as its workspace sees it */
  siteName: string;
  /** set for a tenant's report: that tenant's name */
  tenantName: string | null;
  period: DuePeriod;
  /** the site's IANA time zone the period's days are counted in */
  timezone: string;
  totals: ReportTotals;
  /** the top rows, by visitors, at most REPORT_TOP_ROWS each */
  pages: ReportRow[];
  sources: ReportRow[];
  countries: ReportRow[];
  /** every goal of the site with a conversion in the period; empty when none */
  goals: ReportGoalRow[];
  /** the dashboard for this site (and tenant) and period */
  dashboardUrl: string;
  /** the one-click unsubscribe link of this subscriber (RFC 8058): a GET shows a button, a POST unsubscribes */
  unsubscribeUrl: string;
}

/** How many rows each breakdown of a report shows. */
export const REPORT_TOP_ROWS = 5;
