// The query API's body and answer as the OpenAPI document shows them (Plausible's Stats API v2, with
// footfall's tenant_id and traffic). The body is checked by the domain's parser, whose refusals name the
// field by its JSON path; this schema documents it and is not what validates it.
import { Type } from '@sinclair/typebox';
import { DATE_RANGE_PRESETS } from '../../domain/query-api/date-range.js';
import { MATCH_OPERATORS, QUERY_METRICS, TIME_DIMENSIONS, EVENT_DIMENSIONS, VISIT_DIMENSIONS } from '../../domain/query-api/query-body.js';
import { TRAFFIC_FILTERS } from '../../domain/events.js';
import { MeteredUsageSchema } from './analytics.js';
import { StringEnum } from './common.js';

/** date_range of the query API and the funnel (resolved in the site's time zone); `description` says what it selects. */
export function dateRangeSchema(description: string) {
  return Type.Union(
    [
      StringEnum(DATE_RANGE_PRESETS),
      Type.Array(Type.String(), {
        minItems: 2,
        maxItems: 2,
        description: 'Two local dates ["2024-01-01", "2024-01-31"], or two date-times with their offset',
      }),
    ],
    { description },
  );
}

/** The members of a POST read's body beside its question: who is read, and which traffic. */
export const AudienceFields = {
  site_id: Type.String({ description: "A footfall site id, or one of the site's hostnames" }),
  tenant_id: Type.Optional(
    Type.String({ description: "Counts this tenant's events only (a tenant-restricted token must name one of its own)" }),
  ),
  traffic: Type.Optional(StringEnum(Object.keys(TRAFFIC_FILTERS) as (keyof typeof TRAFFIC_FILTERS)[], { description: 'Default humans' })),
};

/** The meta every POST read answers with: the request, its units and usage, the site's zone. */
export const PostReadMetaFields = {
  request_id: Type.String(),
  units_charged: Type.Integer(),
  billable_overage: Type.Boolean(),
  usage: MeteredUsageSchema,
  timezone: Type.String(),
};

const DIMENSION_NAMES = [...EVENT_DIMENSIONS, 'event:props:<key>', ...VISIT_DIMENSIONS, ...TIME_DIMENSIONS];

export const QueryBodySchema = Type.Object(
  {
    site_id: AudienceFields.site_id,
    date_range: dateRangeSchema("In the site's time zone: presets end today there; dates are its local days"),
    metrics: Type.Array(StringEnum(QUERY_METRICS), { minItems: 1 }),
    dimensions: Type.Optional(
      Type.Array(Type.String(), { description: `Any of ${DIMENSION_NAMES.join(', ')}; at most one time dimension` }),
    ),
    filters: Type.Optional(
      Type.Array(Type.Array(Type.Unknown()), {
        description:
          `[operator, dimension, [values]] with an optional {"case_sensitive": false}; operators ${MATCH_OPERATORS.join(', ')} ` +
          '(matches: RE2 syntax); ["and"|"or", [filters]], ["not", filter], ["has_done"|"has_not_done", filter]. ' +
          'The list is joined by and.',
      }),
    ),
    order_by: Type.Optional(
      Type.Array(Type.Array(Type.String(), { minItems: 2, maxItems: 2, description: '[metric or dimension, "asc" or "desc"]' })),
    ),
    include: Type.Optional(
      Type.Object(
        {
          total_rows: Type.Optional(Type.Boolean()),
          time_labels: Type.Optional(Type.Boolean()),
          imports: Type.Optional(Type.Boolean()),
          compare: Type.Optional(
            Type.Union([
              StringEnum(['previous_period', 'year_over_year'] as const),
              Type.Array(Type.String(), { minItems: 2, maxItems: 2 }),
            ]),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    pagination: Type.Optional(
      Type.Object(
        { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000 })), offset: Type.Optional(Type.Integer({ minimum: 0 })) },
        { additionalProperties: false },
      ),
    ),
    tenant_id: AudienceFields.tenant_id,
    traffic: AudienceFields.traffic,
  },
  { additionalProperties: false, title: 'QueryBody' },
);

const Value = Type.Union([Type.String(), Type.Number()]);

export const QueryAnswerSchema = Type.Object(
  {
    results: Type.Array(
      Type.Object({
        dimensions: Type.Array(Value, { description: 'In the order asked; time as its bucket label; no value as "(none)"' }),
        metrics: Type.Array(Type.Number(), { description: 'In the order asked' }),
        comparison: Type.Optional(
          Type.Object({
            dimensions: Type.Array(Value),
            metrics: Type.Array(Type.Number()),
            change: Type.Array(Type.Number(), { description: 'Percent change of counts and averages; difference in points of rates' }),
          }),
        ),
      }),
    ),
    meta: Type.Object(
      {
        ...PostReadMetaFields,
        imports_included: Type.Boolean(),
        time_labels: Type.Optional(Type.Array(Type.String())),
        total_rows: Type.Optional(Type.Integer()),
        notes: Type.Optional(
          Type.Array(Type.String(), { description: 'What the answer cannot count, e.g. fields stored only since a profile switch' }),
        ),
      },
      { additionalProperties: true },
    ),
    query: Type.Object(
      {},
      { additionalProperties: true, description: 'The query as answered: site id, the range as instants, and the rest' },
    ),
  },
  { title: 'QueryAnswer' },
);
