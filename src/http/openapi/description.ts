// The document's description (Markdown): what a reader of /docs needs besides the operations, the
// error catalog, retry guidance and the metering table, generated from the same tables the server
// uses (error catalog, guidance, report base units, the metering functions) so it cannot drift.
import { ERROR_CATALOG, type ErrorCode } from '../../domain/errors.js';
import { metricsUnits, queryUnits, REPORT_BASE_UNITS, reportUnits } from '../../domain/metering.js';
import { COMPRESSION_THRESHOLD_BYTES } from '../server/compression.js';
import { ERROR_GUIDANCE, type RetryRule } from './error-guidance.js';

const RETRY_TEXT: Record<RetryRule, string> = {
  never: 'no',
  'after-reset': 'after X-RateLimit-Reset',
  backoff: 'exponential backoff',
  'after-retry-after': 'after Retry-After',
};

function table(head: string[], rows: (string | number)[][]): string {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

function errorTable(): string {
  const codes = (Object.keys(ERROR_CATALOG) as ErrorCode[]).sort((a, b) => ERROR_CATALOG[a].status - ERROR_CATALOG[b].status);
  return table(
    ['Code', 'HTTP', 'Meaning', 'What to do', 'Retry'],
    codes.map((c) => [
      `\`${c}\``,
      ERROR_CATALOG[c].status,
      ERROR_CATALOG[c].message,
      ERROR_GUIDANCE[c].action,
      RETRY_TEXT[ERROR_GUIDANCE[c].retry],
    ]),
  );
}

function meteringSection(): string {
  const cases: [string, number][] = [
    ['Timeseries, pageviews, 7 days, day', metricsUnits({ endpoint: 'timeseries', interval: 'day', days: 7, metric: 'pageviews' })],
    ['Timeseries, pageviews, 60 days, hour', metricsUnits({ endpoint: 'timeseries', interval: 'hour', days: 60, metric: 'pageviews' })],
    [
      'Breakdown by referrer, sessions, 30 days, limit 100',
      metricsUnits({ endpoint: 'breakdown', days: 30, limit: 100, dimension: 'referrer', metric: 'sessions' }),
    ],
    [
      'Breakdown by page, pageviews, 90 days, limit 500',
      metricsUnits({ endpoint: 'breakdown', days: 90, limit: 500, dimension: 'page', metric: 'pageviews' }),
    ],
    ['Overview, 30 days, default limit 200, compare', reportUnits({ report: 'overview', days: 30, limit: 200, compare: true })],
    ['Content summary, 365 days', reportUnits({ report: 'content', include: 'summary', days: 365, limit: 200, compare: false })],
  ];
  const b = REPORT_BASE_UNITS;
  return [
    '## Metering',
    '',
    'Metrics endpoints: **units = base x interval x range x limit x dimension x metric**.',
    '',
    table(
      ['Factor', 'Value'],
      [
        ['base', '2 timeseries, 4 breakdown'],
        ['interval', '1 day, 3 hour (timeseries only)'],
        ['range', 'ceil(days / 30)'],
        ['limit', 'ceil(limit / 100), breakdown only (default limit 100)'],
        ['dimension', '2 page, 1 any other (breakdown only)'],
        ['metric', '2 pageviews, visitors, sessions, bounce_rate, avg_pages_per_session, avg_session_eng_time_ms; 1 events'],
      ],
    ),
    '',
    'Reports and goal conversions: **units = base x ceil(days / 30) x ceil(limit / 100) x 2 with compare=prev_period** ' +
      '(`limit` defaults to 200; content summary has no limit factor).',
    '',
    table(
      ['Endpoint', 'Base'],
      [
        ['/v1/reports/overview', b.overview],
        ['/v1/reports/acquisition', b.acquisition],
        ['/v1/reports/actions', b.actions],
        ['/v1/goals/conversions', b.goals_conversions],
        ['/v1/reports/content, include=full (or details)', b.content_full],
        ['/v1/reports/content, include=summary', b.content_summary],
      ],
    ),
    '',
    'The query API (POST /api/v2/query): **units = 2 x ceil(days / 30) x (dimensions + 1) x 3 with time:hour x 2 with ' +
      "a comparison**, `days` the local days of the range in the site's time zone; e.g. 90 days by event:page and " +
      `visit:country, ${queryUnits({ days: 90, dimensions: 2, hourly: false, compare: false })} units.`,
    '',
    table(['Example request', 'Units'], cases),
    '',
    'A cache hit costs the same as a fresh answer. A rejected request (any error, REPORT_RESPONSE_TOO_LARGE included) costs 0. ' +
      '/v1/me, /v1/sites, /v1/tenants, /v1/goals and /v1/usage/* are not metered. `meta.units_charged` and `meta.usage` ' +
      '(this request included) come with every metered answer; past `included_units` requests continue with ' +
      '`meta.billable_overage: true` until `hard_cap_units`, then 402 HARD_CAP_REACHED until the next UTC month.',
  ].join('\n');
}

export function apiDescription(): string {
  return [
    'Read-only HTTP and JSON interface to privacy-first web analytics. Every /v1 operation is a GET without a body; ' +
      "the query API (POST /api/v2/query) takes Plausible's Stats API v2 body.",
    '',
    '## Authentication',
    '',
    'Send exactly one `Authorization: Bearer <token>` header (two are refused with 401). Tokens carry scopes ' +
      '(`metrics:read`, `usage:read`) and may be restricted to sites and tenants; a tenant-restricted token passes ' +
      '`tenant_id` on analytics requests. Every response carries `X-Request-Id` (a valid one you send is echoed); ' +
      'authenticated responses carry `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`.',
    '',
    '## Errors',
    '',
    'Every error, including those for requests the server cannot parse, is `{"error": {"code", "message", "request_id", "details"?}}` ' +
      '(`request_id` equals the X-Request-Id header). Each response lists the codes its status can carry.',
    '',
    errorTable(),
    '',
    '## Retry guidance',
    '',
    '- **429 RATE_LIMITED**: wait until `X-RateLimit-Reset` (Unix seconds; `Retry-After` and `details.retry_after_seconds` say the same in seconds), then retry.',
    '- **500 INTERNAL_ERROR**: retry with exponential backoff (for example 0.5 s, 1 s, 2 s, with jitter), a few times.',
    '- **503 ANALYTICS_DB_UNAVAILABLE** and **503 CONTROL_PLANE_UNAVAILABLE** (any route: the store of tokens, sites and usage is down): ' +
      'retry after `Retry-After`. **503 ANALYTICS_DB_TIMEOUT**: ask again with a shorter range, ' +
      'or later; the same query retried at once would likely time out again.',
    '- **Never retry 401, 402, 403 or 422** (nor 404, 405 or 409): the same request fails the same way. For 402 check ' +
      '`GET /v1/usage/current`; for 409 read `error.details.availability`.',
    '',
    'The typed client shipped with the package (`footfall/client`) follows these rules.',
    '',
    meteringSection(),
    '',
    '## Transport',
    '',
    `Responses over ${COMPRESSION_THRESHOLD_BYTES} bytes are compressed with br or gzip when \`Accept-Encoding\` allows. ` +
      'Integer parameters are plain decimal digits (`1e3`, `0x10`, `10.0` and digits with spaces around them are 422). `HEAD /healthz` answers like ' +
      '`GET /healthz` without a body; every other operation is GET only (405 INVALID_METHOD with `Allow: GET`). ' +
      'Every /v1 response, errors included, carries `Cache-Control: no-store` and `X-Content-Type-Options: nosniff`: ' +
      'answers belong to one token, for your code to keep, not a shared cache.',
  ].join('\n');
}
