// The query API's body (Plausible's Stats API v2 with footfall's tenant_id and traffic): what is taken,
// with its defaults, and each refusal as one 422 naming the field by its JSON path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseQueryBody } from '../../../src/domain/query-api/query-body.js';
import { ApiError } from '../../../src/domain/errors.js';

const base = { site_id: 'example.com', date_range: '7d', metrics: ['visitors'] };

test('a minimal query gets the documented defaults', () => {
  assert.deepEqual(parseQueryBody(base), {
    siteId: 'example.com',
    dateRange: { kind: 'preset', preset: '7d' },
    metrics: ['visitors'],
    dimensions: [],
    filters: [],
    orderBy: [],
    include: { totalRows: false, timeLabels: false, imports: false, compare: null },
    pagination: { limit: 10_000, offset: 0 },
    tenantId: null,
    traffic: 'humans',
  });
});

test('a full query: dimensions, nested filters with every operator, order, include, pagination, tenant and traffic', () => {
  const q = parseQueryBody({
    site_id: 'site_1PBhxpGqcrkZCX2BtUS44j',
    date_range: ['2026-10-01', '2026-10-31'],
    metrics: ['visitors', 'pageviews', 'conversion_rate'],
    dimensions: ['time:week', 'visit:country', 'event:props:plan'],
    filters: [
      ['is', 'event:goal', ['Signup']],
      ['contains', 'event:page', ['/Docs'], { case_sensitive: false }],
      [
        'or',
        [
          ['is_not', 'visit:country', ['DE']],
          ['matches', 'visit:source', ['^(?i)news']],
        ],
      ],
      ['not', ['contains_not', 'visit:utm_campaign', ['spring', 'fall']]],
      ['has_done', ['is', 'event:name', ['Download']]],
      ['has_not_done', ['matches_not', 'event:page', ['^/blog']]],
    ],
    order_by: [
      ['visitors', 'desc'],
      ['visit:country', 'asc'],
    ],
    include: { total_rows: true, time_labels: true, imports: true, compare: 'year_over_year' },
    pagination: { limit: 50, offset: 100 },
    tenant_id: 'ten_acme',
    traffic: 'all',
  });
  assert.deepEqual(q.filters[1], { op: 'contains', dimension: 'event:page', clauses: ['/Docs'], caseSensitive: false });
  assert.deepEqual(q.filters[2], {
    op: 'or',
    filters: [
      { op: 'is_not', dimension: 'visit:country', clauses: ['DE'], caseSensitive: true },
      { op: 'matches', dimension: 'visit:source', clauses: ['^(?i)news'], caseSensitive: true },
    ],
  });
  assert.deepEqual(q.filters[4], {
    op: 'has_done',
    filter: { op: 'is', dimension: 'event:name', clauses: ['Download'], caseSensitive: true },
  });
  assert.deepEqual(q.include, { totalRows: true, timeLabels: true, imports: true, compare: { kind: 'year_over_year' } });
  assert.deepEqual([q.pagination, q.tenantId, q.traffic], [{ limit: 50, offset: 100 }, 'ten_acme', 'all']);
  assert.deepEqual(q.dimensions, ['time:week', 'visit:country', 'event:props:plan']);
  assert.deepEqual(parseQueryBody({ ...base, include: { compare: ['2025-01-01', '2025-01-07'] } }).include.compare, {
    kind: 'days',
    from: '2025-01-01',
    to: '2025-01-07',
  });
});

/** The field a refusal names, and its message. */
function refusal(body: unknown): { field: string; message: string } {
  try {
    parseQueryBody(body);
  } catch (err) {
    assert.ok(err instanceof ApiError && err.code === 'INVALID_PARAMS' && err.status === 422, String(err));
    return { field: (err.details as { field: string }).field, message: err.message };
  }
  assert.fail(`accepted: ${JSON.stringify(body)}`);
}

test('each refusal names its field by JSON path and says what to send', () => {
  const cases: [unknown, string, RegExp][] = [
    [null, '', /JSON object/],
    [{ ...base, sort: 'x' }, 'sort', /unknown field/],
    [{ date_range: '7d', metrics: ['visitors'] }, 'site_id', /non-empty string/],
    [{ ...base, date_range: 'week' }, 'date_range', /"7d"/],
    [{ ...base, metrics: [] }, 'metrics', /at least one/],
    [{ ...base, metrics: ['visitors', 'uniques'] }, 'metrics[1]', /unknown metric "uniques"; known: visitors/],
    [{ ...base, metrics: ['visitors', 'visitors'] }, 'metrics', /named twice/],
    [{ ...base, dimensions: ['visit:planet'] }, 'dimensions[0]', /unknown dimension "visit:planet"/],
    [{ ...base, dimensions: ['event:props:'] }, 'dimensions[0]', /event:props:<key>/],
    [{ ...base, dimensions: [`event:props:${'k'.repeat(301)}`] }, 'dimensions[0]', /1 to 300/],
    [{ ...base, dimensions: ['time:day', 'time:week'] }, 'dimensions', /one time dimension/],
    [{ ...base, metrics: ['bounce_rate'], dimensions: ['event:goal'] }, 'metrics', /bounce_rate is a metric of visits/],
    [{ ...base, metrics: ['percentage'], dimensions: ['time:day'] }, 'metrics', /needs a dimension other than time/],
    [{ ...base, metrics: ['conversion_rate'] }, 'metrics', /needs an event:goal filter or dimension/],
    [{ ...base, filters: [['is', 'visit:country']] }, 'filters[0]', /\[values\]/],
    [{ ...base, filters: [['equals', 'visit:country', ['DE']]] }, 'filters[0][0]', /unknown operator "equals"/],
    [{ ...base, filters: [['is', 'time:day', ['2024-01-01']]] }, 'filters[0][1]', /not a filter: set date_range/],
    [{ ...base, filters: [['is', 'visit:country', []]] }, 'filters[0][2]', /1 to 100 values/],
    [{ ...base, filters: [['is', 'visit:country', ['D\u0000E']]] }, 'filters[0][2][0]', /NUL/],
    [{ ...base, filters: [['is', 'visit:country', ['x'.repeat(2049)]]] }, 'filters[0][2][0]', /longer than 2048/],
    [{ ...base, filters: [['is_not', 'event:goal', ['Signup']]] }, 'filters[0][0]', /"is" or "contains" only/],
    [{ ...base, filters: [['is', 'visit:country', ['DE'], { ignore_case: true }]] }, 'filters[0][3]', /case_sensitive/],
    [{ ...base, filters: [['matches', 'event:page', ['^/a'], { case_sensitive: false }]] }, 'filters[0][3]', /\(\?i\)/],
    [
      {
        ...base,
        filters: [
          [
            'or',
            [
              ['is', 'event:page', ['/']],
              ['is', 'visit:country', ['DE']],
            ],
          ],
        ],
      },
      'filters[0]',
      /not both/,
    ],
    [{ ...base, filters: [['and', []]] }, 'filters[0][1]', /at least one filter/],
    [{ ...base, filters: [['has_done', ['is', 'visit:country', ['DE']]]] }, 'filters[0][1]', /must be of event dimensions/],
    [
      { ...base, filters: [['not', ['not', ['not', ['not', ['not', ['not', ['not', ['not', ['is', 'event:page', ['/']]]]]]]]]]] },
      'filters[0][1][1][1][1][1][1][1][1]',
      /at most 8 deep/,
    ],
    [
      { ...base, filters: [['matches', 'event:page', ['^/a', '(?=b)c']]] },
      'filters[0][2][1]',
      /RE2 syntax \(invalid or unsupported Perl syntax: `\(\?=`\)/,
    ],
    [{ ...base, filters: [['matches_not', 'event:page', ['(a)\\1']]] }, 'filters[0][2][0]', /invalid escape sequence/],
    [{ ...base, filters: [['matches', 'event:page', ['[open']]] }, 'filters[0][2][0]', /missing closing \]/],
    [{ ...base, order_by: [['pageviews', 'desc']] }, 'order_by[0][0]', /neither a metric nor a dimension/],
    [{ ...base, order_by: [['visitors', 'down']] }, 'order_by[0]', /"asc" or "desc"/],
    [{ ...base, include: { labels: true } }, 'include.labels', /unknown option/],
    [{ ...base, include: { time_labels: true } }, 'include.time_labels', /needs a time dimension/],
    [{ ...base, include: { total_rows: 'yes' } }, 'include.total_rows', /true or false/],
    [{ ...base, include: { compare: 'last_year' } }, 'include.compare', /previous_period/],
    [{ ...base, pagination: { limit: 0 } }, 'pagination.limit', /1 to 10000/],
    [{ ...base, pagination: { limit: 10_001 } }, 'pagination.limit', /1 to 10000/],
    [{ ...base, pagination: { offset: -1 } }, 'pagination.offset', /whole number/],
    [{ ...base, pagination: { page: 2 } }, 'pagination', /limit/],
    [{ ...base, traffic: 'robots' }, 'traffic', /humans/],
  ];
  for (const [body, field, message] of cases) {
    const r = refusal(body);
    assert.equal(r.field, field, JSON.stringify(body));
    assert.match(r.message, message, JSON.stringify(body));
    assert.ok(r.message.startsWith(field === '' ? 'the body' : `${field}: `), r.message);
  }
});
