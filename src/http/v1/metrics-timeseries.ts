import { Type } from '@sinclair/typebox';
import { metricsRoute } from '../../domain/availability.js';
import { TIMESERIES_METRICS } from '../../domain/query/metrics.js';
import { checkInterval, metricsDimensions, parseMetricsFilters } from '../../services/analytics/metrics-params.js';
import { timeseriesCsv, timeseriesPlan } from '../../services/analytics/metrics-timeseries.js';
import { defineRoute } from '../pipeline/define-route.js';
import { metricsAnswer } from './metrics-answer.js';
import { CommonAnalyticsParams, MetricsFiltersParam, reportEnvelope } from '../schemas/analytics.js';
import { DateTime, StringEnum } from '../schemas/common.js';

const TimeseriesPayload = Type.Object(
  {
    metric: StringEnum(TIMESERIES_METRICS),
    interval: StringEnum(['day', 'hour'] as const),
    total: Type.Number({ description: "The range's own value (visitors: the sum of daily uniques; rates: of the range's sums)" }),
    points: Type.Array(Type.Object({ start: DateTime, value: Type.Number() }, { additionalProperties: false }), {
      description: 'One point per UTC day or hour of the range, zero-filled',
    }),
  },
  { additionalProperties: false, title: 'Timeseries' },
);

export const metricsTimeseriesRoute = defineRoute({
  url: '/v1/metrics/timeseries',
  operationId: 'getTimeseries',
  family: 'metrics',
  scopes: ['metrics:read'],
  surface: 'overview',
  embed: 'timeseries',
  tags: ['Metrics'],
  summary: 'One metric as a dense series of UTC days or hours',
  description:
    'metric: pageviews (default), visitors (daily uniques), sessions, events, bounce_rate, avg_pages_per_session, avg_session_eng_time_ms. ' +
    'interval: day (default) or hour (starter and up). ' +
    'filters: a JSON object string, dimension name to string value, all must equal; source, medium, campaign, region and city ' +
    'need Extended data (409 otherwise). Units = 2 x interval (day 1, hour 3) x ceil(days / 30) x metric (events 1, others 2); compare costs nothing extra. ' +
    'Accept: text/csv answers the points as CSV (plans with exports.csv, 403 otherwise), metered the same.',
  querystring: Type.Object(
    {
      ...CommonAnalyticsParams,
      metric: Type.Optional(StringEnum(TIMESERIES_METRICS, { description: 'Default pageviews' })),
      interval: Type.Optional(StringEnum(['day', 'hour'] as const, { description: 'Default day' })),
      filters: MetricsFiltersParam,
    },
    { additionalProperties: false },
  ),
  response: reportEnvelope(TimeseriesPayload, 'Report envelope with timeseries points'),
  csv: {
    description:
      'RFC 4180, UTF-8, CRLF: a header row `start,value`, then one row per point; with compare=prev_period a leading `period` column ' +
      '(current rows, then compare rows). Sent as an attachment <site_id>-<metric>-<from>-<to>.csv.',
  },
  errors: [402, 409, 503],
  site: { inactive: 'reject', tenantRequiredForRestrictedToken: true },
  check(query, { caller }) {
    checkInterval(query.interval, caller.policy);
    parseMetricsFilters(query.filters);
  },
  async handler(ctx) {
    const { query } = ctx;
    const filters = parseMetricsFilters(query.filters);
    const params = { metric: query.metric ?? 'pageviews', interval: query.interval ?? 'day', filters } as const;
    return metricsAnswer(
      ctx,
      {
        route: metricsRoute('timeseries', { tenantScoped: ctx.tenant !== null }),
        dimensions: metricsDimensions(filters),
        query,
        plan: (range) => timeseriesPlan(params, range),
      },
      { name: params.metric, table: timeseriesCsv },
    );
  },
});
