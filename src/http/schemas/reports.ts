// Payload schemas of the report routes and goal conversions (docs/api.md; content payloads: docs/product.md
// §8.15; names the API contract leaves open: docs/decisions/reports.md). Each is wrapped by reportEnvelope.
import { Type, type TSchema } from '@sinclair/typebox';
import { ACTION_FAMILIES, CHANNELS } from '../../domain/events.js';
import { DateTime, Named, Nullable, StringEnum } from './common.js';
import { CommonAnalyticsParams } from './analytics.js';

const Num = Type.Number();
const Count = Type.Integer({ minimum: 0 });
const Fraction = Type.Number({ minimum: 0, maximum: 1 });
const Day = Type.String({ format: 'date' });
const NullableString = Type.Union([Type.String(), Type.Null()]);
const Channel = StringEnum(CHANNELS, { title: 'Channel' });
const Family = StringEnum(ACTION_FAMILIES, { title: 'ActionFamily' });
const obj = <T extends Record<string, TSchema>>(props: T, description?: string) =>
  Type.Object(props, { additionalProperties: false, ...(description ? { description } : {}) });

export const ReportQuery = Type.Object(
  {
    ...CommonAnalyticsParams,
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2000, description: 'Rows of top lists; default 200' })),
  },
  { additionalProperties: false },
);

export const ActionsQuery = Type.Object(
  {
    ...ReportQuery.properties,
    action_family: Type.Optional(Family),
    action_key: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: 'Normalized action key (actions[].action_key)' })),
  },
  { additionalProperties: false },
);

export const ContentQuery = Type.Object(
  {
    ...ReportQuery.properties,
    include: Type.Optional(StringEnum(['summary', 'full', 'details'] as const, { description: 'details: deprecated alias of full' })),
  },
  { additionalProperties: false },
);

const PageTitle = Nullable(Type.String());
const mover = obj({
  path_canon: NullableString,
  page_title: PageTitle,
  current_pageviews: Count,
  previous_pageviews: Count,
  delta: Type.Integer(),
  delta_pct: Type.Number({ description: 'Percent of previous_pageviews; 100 when previous_pageviews is 0' }),
});

export const OverviewPayload = Named(
  'OverviewReport',
  obj({
    overview: obj({
      totals: obj({
        pageviews: Count,
        sessions: Count,
        visitors: Count,
        avg_pages_per_session: Num,
        bounce_rate: Fraction,
        engagement_rate: Fraction,
        avg_session_eng_time_ms: Num,
        avg_page_eng_time_ms: Num,
      }),
      timeseries: Type.Array(
        obj({
          date: Day,
          pageviews: Count,
          sessions: Count,
          visitors: Count,
          bounce_rate: Fraction,
          engagement_rate: Fraction,
          avg_session_eng_time_ms: Num,
          avg_page_eng_time_ms: Num,
        }),
      ),
      visitors_mode: StringEnum(['sessions', 'daily_uniques'] as const),
    }),
    content: obj({
      top_pages: Type.Array(obj({ path_canon: NullableString, page_title: PageTitle, pageviews: Count })),
      movers: obj({ top_gainers: Type.Array(mover), top_losers: Type.Array(mover) }),
    }),
    acquisition: obj({
      by_channel: Type.Array(obj({ channel: Channel, sessions: Count })),
      top_referrers: Type.Array(obj({ domain: Type.String(), channel: Channel, sessions: Count, favicon_url: NullableString })),
      top_landing_pages: Type.Array(obj({ path_canon: NullableString, channel: Channel, sessions: Count, page_title: PageTitle })),
    }),
    audience: obj({
      countries: Type.Array(obj({ country: Type.String(), sessions: Count })),
      regions: Type.Array(obj({ region: Type.String(), country: Type.String(), sessions: Count })),
      cities: Type.Array(obj({ city: Type.String(), country: Type.String(), sessions: Count })),
      devices: Type.Array(obj({ device_type: Type.String(), sessions: Count })),
      browsers: Type.Array(obj({ browser_family: Type.String(), sessions: Count })),
      os: Type.Array(obj({ os_family: Type.String(), sessions: Count })),
    }),
    data_health: obj({ last_event_at: Nullable(DateTime) }),
  }),
);

const attributionRow = (name: string) => obj({ [name]: Type.String(), sessions: Count, engagement_rate: Fraction });

export const AcquisitionPayload = Named(
  'AcquisitionReport',
  obj({
    totals: obj({ sessions: Count, pageviews: Count, engagement_rate: Fraction, avg_session_eng_time_ms: Num }),
    by_day: Type.Array(obj({ date: Day, sessions: Count, pageviews: Count, engagement_rate: Fraction, avg_session_eng_time_ms: Num })),
    by_channel: Type.Array(obj({ channel: Channel, sessions: Count })),
    top_referrers: Type.Array(obj({ referrer_host: Type.String(), sessions: Count, engagement_rate: Fraction })),
    top_sources: Type.Array(attributionRow('source')),
    top_mediums: Type.Array(attributionRow('medium')),
    top_campaigns: Type.Array(attributionRow('campaign')),
    top_landing_pages: Type.Array(obj({ path_canon: NullableString, channel: Channel, sessions: Count, page_title: PageTitle })),
    coverage: obj({
      direct_sessions: Count,
      non_direct_sessions: Count,
      tagged_sessions: Count,
      direct_share: Fraction,
      non_direct_share: Fraction,
      tagged_share: Fraction,
    }),
    mix_timeseries: Type.Array(obj({ date: Day, channel: Channel, sessions: Count })),
    goals_configured: Type.Boolean(),
  }),
);

const actionTotals = {
  total_sessions: Count,
  meaningful_action_sessions: Count,
  meaningful_occurrences: Count,
  error_sessions: Count,
  instrumentation_sessions: Count,
};
const Scope = StringEnum(['family', 'action'] as const);

export const ActionsPayload = Named(
  'ActionsReport',
  obj({
    goals_configured: Type.Boolean(),
    active_family: Type.Union([Family, Type.Null()]),
    totals: obj(actionTotals),
    families: Type.Array(obj({ family: Family, sessions: Count, occurrences: Count })),
    timeseries: Type.Array(obj({ date: Day, ...actionTotals })),
    family_timeseries: Type.Array(obj({ date: Day, family: Family, sessions: Count, occurrences: Count })),
    actions: Type.Array(
      obj({
        action_key: Type.String(),
        action_name: Type.String(),
        event_name: NullableString,
        family: Family,
        action_id: NullableString,
        action_target_host: NullableString,
        form_id: NullableString,
        form_action_path: NullableString,
        sessions: Count,
        occurrences: Count,
        top_page: NullableString,
        top_source: Type.Union([Channel, Type.Null()]),
      }),
    ),
    context: obj({
      pages: Type.Array(obj({ scope: Scope, path_canon: NullableString, sessions: Count })),
      sources: Type.Array(obj({ scope: Scope, channel: Channel, sessions: Count })),
      segments: Type.Array(
        obj({ scope: Scope, kind: StringEnum(['device', 'country', 'browser'] as const), label: Type.String(), sessions: Count }),
      ),
    }),
  }),
);

const contentTotals = obj({ pageviews: Count, visitors: Count, sessions: Count });

export const ContentSummaryPayload = Named(
  'ContentSummary',
  obj(
    {
      include: Type.Literal('summary'),
      totals: contentTotals,
      timeseries: Type.Array(obj({ date: Day, pageviews: Count, visitors: Count, sessions: Count })),
    },
    'include=summary',
  ),
);

export const ContentFullPayload = Named(
  'ContentFull',
  obj(
    {
      include: Type.Literal('full'),
      totals: contentTotals,
      pages: Type.Array(
        obj({
          path_canon: NullableString,
          page_title: PageTitle,
          pageviews: Count,
          visitors: Count,
          entries: Count,
          exits: Count,
          avg_page_eng_time_ms: Num,
          trend: Type.Array(obj({ date: Day, pageviews: Count })),
        }),
      ),
      entry_pages: Type.Array(obj({ path_canon: NullableString, page_title: PageTitle, entries: Count })),
      exit_pages: Type.Array(obj({ path_canon: NullableString, page_title: PageTitle, exits: Count })),
    },
    'include=full (details is normalized to full)',
  ),
);

export const ContentPayload = Type.Union([ContentSummaryPayload, ContentFullPayload]);

export const GoalConversionsPayload = Named(
  'GoalConversions',
  obj({
    goals: Type.Array(
      obj({
        goal_id: Type.String(),
        conversions: Count,
        unique_sessions: Count,
        total_sessions: Count,
        last_seen_at: Nullable(DateTime),
      }),
    ),
  }),
);
