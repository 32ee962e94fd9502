// POST /api/v2/funnel's body and answer as the OpenAPI document shows them. The body is checked by the
// domain's parser (funnel-body.ts), whose refusals name the field by its JSON path; this schema
// documents it and is not what validates it.
import { Type } from '@sinclair/typebox';
import { MAX_FUNNEL_STEPS, MIN_FUNNEL_STEPS } from '../../domain/funnels.js';
import { AudienceFields, dateRangeSchema, PostReadMetaFields } from './query-api.js';

/** A step: a page path pattern or an event name (the management API's saved funnels use it too). */
export const FunnelStepSchema = Type.Union(
  [
    Type.Object(
      {
        page: Type.String({
          minLength: 1,
          maxLength: 1000,
          description: 'A path pattern: * is any run of characters; anchored, case-sensitive',
        }),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        event: Type.String({
          minLength: 1,
          maxLength: 1000,
          description: 'An event name: an action whose event_name or action_name equals it',
        }),
      },
      { additionalProperties: false },
    ),
  ],
  { title: 'FunnelStep' },
);

export const FunnelStepsSchema = Type.Array(FunnelStepSchema, { minItems: MIN_FUNNEL_STEPS, maxItems: MAX_FUNNEL_STEPS });

export const FunnelBodySchema = Type.Object(
  {
    site_id: AudienceFields.site_id,
    date_range: dateRangeSchema("The visits that start in it, in the site's time zone (as the query API's date_range)"),
    steps: Type.Optional({ ...FunnelStepsSchema, description: 'In order; or funnel_id instead' }),
    funnel_id: Type.Optional(Type.String({ description: 'A saved funnel of the site, instead of steps' })),
    filters: Type.Optional(
      Type.Array(Type.Array(Type.Unknown()), {
        description:
          "The query API's filters: visit filters choose the visits; event filters the events that may match a step. The list is joined by and.",
      }),
    ),
    tenant_id: AudienceFields.tenant_id,
    traffic: AudienceFields.traffic,
  },
  { additionalProperties: false, title: 'FunnelBody' },
);

export const FunnelAnswerSchema = Type.Object(
  {
    steps: Type.Array(
      Type.Object({
        label: Type.String({ description: 'The page pattern or the event name' }),
        visitors: Type.Integer({ description: 'Distinct visitors (per UTC day, summed) of the visits that reached the step' }),
        conversion_rate: Type.Number({ description: 'Visitors per visitor of step 1, percent, one decimal' }),
        dropoff: Type.Integer({ description: 'Visitors of the step before who did not reach this one (0 at step 1)' }),
        dropoff_rate: Type.Number({ description: 'The dropoff per visitor of the step before, percent, one decimal' }),
      }),
    ),
    meta: Type.Object(
      {
        ...PostReadMetaFields,
      },
      { additionalProperties: true },
    ),
    query: Type.Object(
      {},
      {
        additionalProperties: true,
        description: 'The funnel as answered: site id, the range as instants, its steps (and funnel_id and name of a saved one)',
      },
    ),
  },
  { title: 'FunnelAnswer' },
);
