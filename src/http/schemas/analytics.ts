// Schemas of the common report envelope (spec "Common report envelope", "Availability object"),
// shared by the metrics, report and goal-conversion routes: `reportEnvelope(payload)`.
// Responses are serialized by serveAnalytics (JSON.stringify); these schemas document and test them.
import { Type, type TSchema } from '@sinclair/typebox';
import { TRAFFIC_FILTERS } from '../../domain/events.js';
import { DataEnvelopeSchema, DateParam, DateTime, Level, Nullable, ProfileSchema, StringEnum } from './common.js';

const NullableDateTime = Nullable(DateTime);

export const WindowStatusSchema = StringEnum(
  [
    'available',
    'locked_by_profile',
    'partially_available_after_effective_at',
    'partially_available_outside_source_coverage',
    'not_available_for_requested_period',
  ] as const,
  { title: 'WindowStatus' },
);

const WINDOW_REASONS = [
  'strict_safe_route',
  'extended_data_required',
  'requested_period_has_no_extended_data',
  'requested_period_crosses_profile_change',
  'outside_source_coverage',
  'section_not_collected_in_runtime',
] as const;
export const WindowReasonSchema = Type.Unsafe<(typeof WINDOW_REASONS)[number] | null>({
  type: ['string', 'null'],
  enum: [...WINDOW_REASONS, null],
  title: 'WindowReason',
});

export const ClassificationSchema = StringEnum(['strict_safe', 'extended_only', 'mixed'] as const, { title: 'Classification' });

export const RouteIdSchema = StringEnum(
  [
    'overview',
    'content',
    'acquisition',
    'acquisition_summary',
    'acquisition_details',
    'audience_summary',
    'audience_dimensions',
    'audience_profiles',
    'technology',
    'performance',
    'actions',
    'goals',
    'robots',
    'timeseries',
    'timeseries_tenant',
    'breakdown',
    'breakdown_tenant',
  ] as const,
  { title: 'AvailabilityRoute' },
);

export const AvailabilityWindowSchema = Type.Object(
  {
    status: WindowStatusSchema,
    reason: WindowReasonSchema,
    requestedStart: DateTime,
    requestedEnd: DateTime,
    compatibleStart: NullableDateTime,
    compatibleEnd: NullableDateTime,
  },
  { additionalProperties: false, title: 'AvailabilityWindow' },
);

const SectionIdSchema = StringEnum(
  [
    'overview_regions',
    'overview_cities',
    'acquisition_attribution',
    'actions_advanced',
    'audience_top_campaigns',
    'technology_regions',
    'technology_cities',
    'overview_acquisition',
  ] as const,
  { title: 'SectionId' },
);

const ReadModelSliceSchema = StringEnum(
  [
    'overview_core',
    'overview_geography',
    'acquisition_lite',
    'acquisition_attribution',
    'actions_simple',
    'actions_advanced',
    'audience_core',
    'audience_campaigns',
    'technology_core',
    'technology_geography',
  ] as const,
  { title: 'ReadModelSlice' },
);

export const AvailabilitySectionSchema = Type.Object(
  {
    id: SectionIdSchema,
    classification: ClassificationSchema,
    current: AvailabilityWindowSchema,
    compare: Type.Union([AvailabilityWindowSchema, Type.Null()]),
  },
  { additionalProperties: false, title: 'AvailabilitySection' },
);

export const AvailabilitySchema = Type.Object(
  {
    route: RouteIdSchema,
    classification: ClassificationSchema,
    currentProfile: ProfileSchema,
    collectionProfileEffectiveAt: NullableDateTime,
    current: AvailabilityWindowSchema,
    compare: Type.Union([AvailabilityWindowSchema, Type.Null()]),
    sections: Type.Array(AvailabilitySectionSchema),
    readModel: Type.Optional(
      Type.Object(
        { strictSafe: Type.Array(ReadModelSliceSchema), extended: Type.Array(ReadModelSliceSchema) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, title: 'Availability', description: 'Profile-aware availability of the route for the requested windows' },
);

export const RangeSchema = Type.Object(
  { start: DateTime, end: DateTime, compare_start: NullableDateTime, compare_end: NullableDateTime },
  { additionalProperties: false, title: 'ReportRange' },
);

const Integer = Type.Integer({ minimum: 0 });

export const SurfaceSchema = Type.Object(
  {
    mode: ProfileSchema,
    dataEnvelope: DataEnvelopeSchema,
    dataFreshness: Type.Object(
      {
        status: StringEnum(['fresh', 'delayed', 'stale', 'unknown'] as const),
        asOf: NullableDateTime,
        lagMinutes: Nullable(Type.Integer({ minimum: 0 })),
        cached: Type.Boolean(),
        notes: Type.Array(Type.String()),
      },
      { additionalProperties: false },
    ),
    compareWindow: Type.Object(
      {
        enabled: Type.Boolean(),
        mode: Type.Union([Type.Literal('prev_period'), Type.Null()]),
        compareStart: NullableDateTime,
        compareEnd: NullableDateTime,
      },
      { additionalProperties: false },
    ),
    exportCapability: Type.Object(
      { csv: Type.Boolean(), level: Level, dataEnvelope: DataEnvelopeSchema, notes: Type.Array(Type.String()) },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, title: 'Surface' },
);

/** meta.usage of every metered answer: the month's units, this request included. */
export const MeteredUsageSchema = Type.Object(
  { used_units: Integer, overage_units: Integer, included_units: Integer, hard_cap_units: Integer },
  { additionalProperties: false, title: 'MeteredUsage', description: "The month's usage, this request included" },
);

export const ReportMetaSchema = Type.Object(
  {
    request_id: Type.String(),
    units_charged: Integer,
    billable_overage: Type.Boolean(),
    usage: MeteredUsageSchema,
    surface: Type.Optional(SurfaceSchema),
  },
  { additionalProperties: false, title: 'ReportMeta' },
);

/** The common report envelope around one payload schema (current; compare has the same shape or null). */
export function reportEnvelope<P extends TSchema>(payload: P, description?: string) {
  return Type.Object(
    {
      current: payload,
      compare: Type.Union([payload, Type.Null()]),
      range: RangeSchema,
      availability: AvailabilitySchema,
      meta: ReportMetaSchema,
    },
    { additionalProperties: false, ...(description ? { description } : {}) },
  );
}

/** Common analytics query parameters (reports, goal conversions and metrics share these). */
export const CommonAnalyticsParams = {
  site_id: Type.String({ minLength: 1, maxLength: 200 }),
  tenant_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Stable tenant id' })),
  from: Type.Optional(DateParam),
  to: Type.Optional(DateParam),
  compare: Type.Optional(StringEnum(['prev_period'] as const)),
  traffic: Type.Optional(StringEnum(Object.keys(TRAFFIC_FILTERS) as (keyof typeof TRAFFIC_FILTERS)[], { description: 'Default humans' })),
};

/** The metrics filter parameter, `filters` (docs/product.md §5). */
export const MetricsFiltersParam = Type.Optional(
  Type.String({
    maxLength: 16384,
    description: 'JSON object serialized as a string: dimension name -> string value; every pair must equal',
  }),
);
