// Metered units (docs/metering.md; docs/product.md §5, §6). Pure arithmetic; callers pass validated inputs.

export type MetricsEndpoint = 'timeseries' | 'breakdown';
export type Interval = 'day' | 'hour';

export interface MetricsUnitsInput {
  endpoint: MetricsEndpoint;
  /** timeseries only; breakdowns count as day */
  interval?: Interval;
  /** inclusive UTC days of the range */
  days: number;
  /** breakdown only */
  limit?: number;
  /** breakdown only */
  dimension?: string;
  metric: string;
}

function positiveInt(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

/** ceil(days / 30): the range factor shared by metrics and reports. */
export function rangeFactor(days: number): number {
  return Math.ceil(positiveInt('days', days) / 30);
}

/** ceil(limit / 100). */
export function limitFactor(limit: number): number {
  return Math.ceil(positiveInt('limit', limit) / 100);
}

/** docs/metering.md: base x interval x range x limit x dimension x metric. Compare does not change it (docs/product.md §5). */
export function metricsUnits(input: MetricsUnitsInput): number {
  const breakdown = input.endpoint === 'breakdown';
  const base = breakdown ? 4 : 2;
  const interval = !breakdown && input.interval === 'hour' ? 3 : 1;
  const limit = breakdown ? limitFactor(input.limit ?? 100) : 1;
  const dimension = breakdown && input.dimension === 'page' ? 2 : 1;
  // visitors weigh like pageviews (docs/product.md §5); only events is the light metric
  const metric = input.metric === 'events' ? 1 : 2;
  return base * interval * rangeFactor(input.days) * limit * dimension * metric;
}

export type ReportName = 'overview' | 'acquisition' | 'actions' | 'goals_conversions' | 'content';
export type ContentInclude = 'summary' | 'full';

export interface ReportUnitsInput {
  report: ReportName;
  days: number;
  /** rows of top lists; the report default is 200 */
  limit: number;
  compare: boolean;
  /** content only, already resolved (details normalized to full) */
  include?: ContentInclude;
}

/** Report base factors (docs/metering.md). */
export const REPORT_BASE_UNITS = {
  overview: 10,
  acquisition: 8,
  actions: 8,
  goals_conversions: 4,
  content_full: 6,
  content_summary: 2,
} as const;

/** units = base x ceil(days/30) x ceil(limit/100) x (2 with compare); content summary has no limit factor. */
export function reportUnits(input: ReportUnitsInput): number {
  let base: number;
  let withLimit = true;
  if (input.report === 'content') {
    if (input.include !== 'summary' && input.include !== 'full') throw new RangeError('content units need include summary|full');
    base = input.include === 'summary' ? REPORT_BASE_UNITS.content_summary : REPORT_BASE_UNITS.content_full;
    withLimit = input.include === 'full';
  } else {
    base = REPORT_BASE_UNITS[input.report];
  }
  const limit = withLimit ? limitFactor(input.limit) : 1;
  return base * rangeFactor(input.days) * limit * (input.compare ? 2 : 1);
}

export interface QueryUnitsInput {
  /** local days of the range (a date-time range: its 24-hour days, the last one begun counted) */
  days: number;
  /** the query's dimensions, time ones included (a funnel: one per step) */
  dimensions: number;
  /** a time:hour dimension */
  hourly: boolean;
  compare: boolean;
}

/** The query API's units: 2 x ceil(days / 30) x (dimensions + 1) x (3 with time:hour) x (2 with compare). */
export function queryUnits(input: QueryUnitsInput): number {
  if (!Number.isSafeInteger(input.dimensions) || input.dimensions < 0)
    throw new RangeError(`dimensions must be 0 or more, got ${input.dimensions}`);
  return 2 * rangeFactor(input.days) * (input.dimensions + 1) * (input.hourly ? 3 : 1) * (input.compare ? 2 : 1);
}
