// Bodies and answers of the management API (/app/api), in the command line's snake_case names. The
// request schemas are checked with TypeBox's compiler, so enums are unions of literals (which it
// checks) rather than the read API's Unsafe enums (which only Fastify's validator reads).
import { Type, type TLiteral, type TSchema, type TUnion } from '@sinclair/typebox';
import { MAX_EMAIL_LENGTH, MAX_PASSWORD_LENGTH } from '../../domain/people.js';
import { PLAN_IDS } from '../../domain/plans.js';
import { ROLES } from '../../domain/roles.js';
import { GOAL_INTENTS } from '../../ports/catalog-store.js';
import { TOKEN_SCOPES } from '../../domain/access.js';
import { MANAGE_ERROR_CODES } from '../../domain/manage-errors.js';
import { DASHBOARD_SURFACES } from '../../domain/plans.js';
import { FunnelStepsSchema } from '../schemas/funnel.js';
import { REPORT_PERIODS } from '../../domain/report-periods.js';

export function Enum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}): TUnion<TLiteral<T[number]>[]> {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  );
}
const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);

const Id = (description: string) => Type.String({ minLength: 1, maxLength: 100, description });
export const DateTime = Type.String({ format: 'date-time' });
export const Name = Type.String({ minLength: 1, maxLength: 200 });
export const Email = Type.String({ minLength: 1, maxLength: MAX_EMAIL_LENGTH, description: 'Compared case-insensitively' });
export const Password = Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH, description: 'At least 10 characters when chosen' });
/** The secret of a link, as the page at the link's path reads it from its URL. */
export const LinkSecret = Type.String({ minLength: 1, maxLength: 200 });
export const RoleSchema = Enum(ROLES, { title: 'Role' });
export const ProfileSchema = Enum(['strict', 'extended'] as const, { title: 'CollectionProfile' });
export const SiteStatusSchema = Enum(['ACTIVE', 'SUSPENDED'] as const, { title: 'SiteStatus' });
export const TenantStatusSchema = Enum(['ACTIVE', 'INACTIVE'] as const, { title: 'TenantStatus' });
export const GoalTypeSchema = Enum(['PAGEVIEW_MATCH', 'EVENT_MATCH'] as const, { title: 'GoalType' });
export const GoalIntentSchema = Enum(GOAL_INTENTS, { title: 'GoalIntent' });
export const ScopeSchema = Enum(TOKEN_SCOPES, { title: 'Scope' });

export const UserSchema = Type.Object(
  { user_id: Type.String(), email: Type.String(), name: Nullable(Type.String()) },
  { title: 'User', additionalProperties: false },
);

export const SessionSchema = Type.Object(
  { user: UserSchema, csrf_token: Type.String({ description: 'Send it as X-CSRF-Token on every request but GET and HEAD' }) },
  { title: 'Session' },
);

export const SecondStepSchema = Type.Object(
  {
    two_factor_required: Type.Literal(true),
    challenge: Type.String({
      description: 'Send it back with a code to POST /session/second-step; open five minutes, used once. No session was made yet.',
    }),
    expires_at: DateTime,
  },
  { title: 'SecondStep', additionalProperties: false },
);

/** What a right password (or a reset or sign-in link) answers: a session, or, with two-factor on, the second step. */
export const SignInSchema = Type.Union([SessionSchema, SecondStepSchema], { title: 'SignIn' });

export const WorkspaceSummarySchema = Type.Object(
  { workspace_id: Type.String(), name: Type.String(), plan: Enum(PLAN_IDS, { title: 'Plan' }), role: RoleSchema },
  { title: 'WorkspaceSummary' },
);

export const SessionStateSchema = Type.Object(
  { user: UserSchema, csrf_token: Type.String(), workspaces: Type.Array(WorkspaceSummarySchema) },
  { title: 'SessionState' },
);

export const DnsVerificationSchema = Type.Object(
  {
    name: Type.String({ description: '_footfall.<domain>' }),
    type: Type.Literal('TXT'),
    value: Type.String({ description: 'footfall-verification=<code>: fixed for the workspace and the domain' }),
  },
  { title: 'DnsVerification', description: 'The TXT record that proves the workspace holds the domain' },
);

const DomainProofSchema = Type.Object(
  {
    domain: Type.String(),
    verified: Type.Boolean(),
    verified_at: Nullable(DateTime),
    claimed_by_another_workspace: Type.Boolean({
      description: 'Another workspace has proven this domain: nothing inside it collects here',
    }),
    verification: DnsVerificationSchema,
  },
  { title: 'DomainProof' },
);

export const SiteRecordSchema = Type.Object(
  {
    site_id: Type.String(),
    workspace_id: Type.String(),
    name: Type.String(),
    hostnames: Type.Array(Type.String()),
    status: SiteStatusSchema,
    collection_profile: ProfileSchema,
    collection_profile_effective_at: Nullable(DateTime),
    created_at: DateTime,
    timezone: Type.String({
      description: "IANA time zone name the dashboard and the query API are to count the site's days in (default UTC; /v1 counts UTC days)",
    }),
    domain_scope: Nullable(
      Type.String({ description: 'A registrable domain: the site collects for it and every subdomain once it is verified' }),
    ),
    hostname_patterns: Type.Array(
      Type.String({ description: '*.<suffix>: hosts ending in .<suffix>; collects once its domain is verified' }),
    ),
    domains: Type.Array(DomainProofSchema, {
      description: "The workspace's proof of each domain the scope and the patterns lie in, the scope's first",
    }),
    released_hostnames: Type.Array(Type.Object({ hostname: Type.String(), released_at: DateTime }), {
      description: 'Exact hostnames this site lost when another workspace verified their domain, oldest first',
    }),
  },
  { title: 'SiteRecord' },
);

export const CreatedSiteSchema = Type.Intersect([SiteRecordSchema, Type.Object({ verification: Type.Optional(DnsVerificationSchema) })], {
  title: 'CreatedSite',
  description: 'With a domain scope: `verification`, the TXT record to publish before POST /app/api/sites/{site_id}/verify',
});

export const SiteVerificationSchema = Type.Object(
  { site_id: Type.String(), domain: Type.String(), verified: Type.Literal(true), verified_at: DateTime },
  { title: 'SiteVerification' },
);

export const TenantRecordSchema = Type.Object(
  {
    tenant_id: Type.String(),
    site_id: Type.String(),
    slug: Type.String(),
    name: Type.String(),
    status: TenantStatusSchema,
    created_at: DateTime,
  },
  { title: 'TenantRecord' },
);

const GoalFiltersSchema = Type.Object(
  {
    action_id: Type.Optional(Type.String({ maxLength: 1000 })),
    action_target_host: Type.Optional(Type.String({ maxLength: 1000 })),
    form_id: Type.Optional(Type.String({ maxLength: 1000 })),
    form_action_path: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { title: 'GoalFilters', additionalProperties: false },
);
export { GoalFiltersSchema };

export const GoalRecordSchema = Type.Object(
  {
    goal_id: Type.String(),
    site_id: Type.String(),
    name: Type.String(),
    type: GoalTypeSchema,
    intent: GoalIntentSchema,
    pattern: Type.String(),
    filters: GoalFiltersSchema,
    created_at: DateTime,
    updated_at: DateTime,
  },
  { title: 'GoalRecord' },
);

export const FunnelRecordSchema = Type.Object(
  {
    funnel_id: Type.String(),
    site_id: Type.String(),
    name: Type.String(),
    steps: FunnelStepsSchema,
    created_at: DateTime,
    updated_at: DateTime,
  },
  { title: 'FunnelRecord' },
);

export const TokenRecordSchema = Type.Object(
  {
    token_id: Type.String(),
    workspace_id: Type.String(),
    name: Nullable(Type.String({ description: 'What the token is for; null: unnamed' })),
    scopes: Type.Array(ScopeSchema),
    site_ids: Nullable(Type.Array(Type.String())),
    tenant_ids: Nullable(Type.Array(Type.String())),
    created_at: DateTime,
    rotated_at: Nullable(DateTime),
    revoked_at: Nullable(DateTime),
  },
  { title: 'TokenRecord' },
);

export const TokenWithSecretSchema = Type.Intersect(
  [TokenRecordSchema, Type.Object({ secret: Type.String({ description: 'Shown only in this answer; only its hash is stored' }) })],
  { title: 'TokenWithSecret' },
);

export const MemberSchema = Type.Object(
  { user_id: Type.String(), email: Type.String(), name: Nullable(Type.String()), role: RoleSchema, joined_at: DateTime },
  { title: 'Member' },
);

export const SeatsSchema = Type.Object(
  {
    used: Type.Integer({ minimum: 0, description: 'Members plus open invitations' }),
    limit: Nullable(Type.Integer({ minimum: 0, description: 'null: unlimited' })),
  },
  { title: 'Seats' },
);

export const InvitationSchema = Type.Object(
  {
    invitation_id: Type.String(),
    email: Type.String(),
    role: RoleSchema,
    invited_by: Nullable(Type.String({ description: 'user_id; null when made by the command line' })),
    created_at: DateTime,
    expires_at: DateTime,
  },
  { title: 'Invitation' },
);

export const InvitationPreviewSchema = Type.Object(
  {
    email: Type.String({ description: 'The email the invitation is for' }),
    role: RoleSchema,
    workspace_name: Type.String(),
    invited_by: Nullable(
      Type.Object({ name: Nullable(Type.String()), email: Type.String() }, { description: 'null when made by the command line' }),
    ),
    expires_at: DateTime,
    account_exists: Type.Boolean({
      description:
        'true: the email has an account, which joins from a session of its own (POST /invitations/join); false: the person chooses a password (POST /invitations/accept)',
    }),
  },
  { title: 'InvitationPreview' },
);

export const JoinedSchema = Type.Object({ workspace_id: Type.String() }, { title: 'Joined' });

export const MailErrorSchema = Type.Object(
  {
    code: Type.Union([Type.Literal('MAIL_NOT_CONFIGURED'), Type.Literal('MAIL_NOT_SENT')], {
      description:
        'MAIL_NOT_CONFIGURED: this server sends no mail (FOOTFALL_SMTP_URL unset); MAIL_NOT_SENT: the mail server did not take the mail',
    }),
    message: Type.String({ description: 'What happened and what to do, with nothing secret in it' }),
  },
  { title: 'MailError' },
);

export const IssuedInvitationSchema = Type.Object(
  {
    invitation_id: Type.String(),
    expires_at: DateTime,
    mailed: Type.Boolean({ description: 'true: the link was mailed to the invitee, and to nobody else' }),
    invitation_url: Type.Optional(
      Type.String({
        description: 'The single-use link, shown only in this answer, and only when the server sends no mail: give it to the person',
      }),
    ),
    mail_error: Type.Optional(MailErrorSchema),
  },
  { title: 'IssuedInvitation' },
);

export const ResetRequestedSchema = Type.Object(
  {
    mail_configured: Type.Boolean({
      description:
        'true: if an account has the email, a link was mailed to it (the answer is the same either way); false: this server sends no mail and nothing was sent',
    }),
    message: Type.String(),
  },
  { title: 'ResetRequested' },
);

export const UsageSchema = Type.Object(
  {
    period: Type.String(),
    units_used: Type.Integer(),
    units_included: Type.Integer(),
    units_overage: Type.Integer(),
    hard_cap_units: Type.Integer(),
    reset_at: DateTime,
    events_used: Type.Optional(
      Type.Integer({ description: "Events stored for this UTC month (each event's own timestamp), imports and collection" }),
    ),
    events_included: Type.Optional(
      Type.Union([Type.Integer(), Type.Null()], {
        description: "The plan's included events per month (free 25,000, starter 100,000, pro 1,000,000); null: unlimited",
      }),
    ),
    events_overage: Type.Optional(
      Type.Integer({ description: 'Events past the included ones: a preview, never an invoice; collection goes on' }),
    ),
  },
  { title: 'ApiUsage' },
);

export const DashboardRulesSchema = Type.Object(
  {
    surfaces: Type.Array(Enum(DASHBOARD_SURFACES, { title: 'DashboardSurface' }), {
      description: "The surfaces the plan's dashboard reads; the rest answer 403 FORBIDDEN",
    }),
    hourly: Type.Boolean({ description: 'interval=hour' }),
    csv: Type.Boolean({ description: 'Accept: text/csv on the metrics routes' }),
    retention_days: Nullable(Type.Integer({ minimum: 0, description: 'Readable days back from today; null: no limit' })),
    max_range_days: Nullable(Type.Integer({ minimum: 0, description: 'The longest range; null: no limit' })),
    row_limit: Type.Integer({ minimum: 1, description: 'The largest `limit` of a breakdown or a report' }),
  },
  {
    title: 'DashboardRules',
    description: "The plan's dashboard policy: what the dashboard's reads of this workspace's sites (/app/api/v1/...) may ask",
  },
);

export const WorkspaceDetailsSchema = Type.Object(
  {
    workspace: WorkspaceSummarySchema,
    dashboard: DashboardRulesSchema,
    plan: Type.Object(
      {
        api_tokens: Type.Boolean({ description: 'The plan lets the workspace have API tokens (the read API, /v1)' }),
        max_users: Nullable(Type.Integer({ minimum: 0, description: 'Seats: members plus open invitations; null: unlimited' })),
        max_sites: Nullable(Type.Integer({ minimum: 0, description: 'null: unlimited' })),
      },
      { title: 'PlanAllowances' },
    ),
  },
  { title: 'WorkspaceDetails' },
);

export const SiteDashboardSchema = Type.Object(
  {
    site: SiteRecordSchema,
    workspace: WorkspaceSummarySchema,
    dashboard: DashboardRulesSchema,
    tracker_script_url: Type.String({
      description:
        "The collection script of this server (FOOTFALL_PUBLIC_URL + /js/script.js): the site's pages load it with data-domain set to one of its hostnames",
    }),
  },
  { title: 'SiteDashboard' },
);

export const LiveVisitorsSchema = Type.Object(
  {
    visitors: Type.Integer({ minimum: 0, description: 'Distinct visitors (human traffic) with an event in the last 5 minutes' }),
    last_event_at: Nullable(Type.String({ format: 'date-time', description: "The site's newest stored event; null: none yet" })),
  },
  { title: 'LiveVisitors' },
);

export const ReadBatchLineSchema = Type.Object(
  {
    i: Type.Integer({ minimum: 0, description: 'The position in `r` of the read this line answers' }),
    status: Type.Integer({ description: 'The status the read, sent on its own, would have' }),
    retry_after: Type.Optional(
      Type.String({ description: "The read's Retry-After (status 429): seconds to wait before asking for it again" }),
    ),
    body: Type.Unknown({ description: "What the read, sent on its own, would answer: its JSON, or the read API's error envelope" }),
  },
  { title: 'ReadBatchLine', description: "One line of the stream: one read's answer, sent as soon as it is ready" },
);

export const ManageErrorEnvelope = Type.Object(
  {
    error: Type.Object({
      code: Enum(MANAGE_ERROR_CODES, { title: 'ManageErrorCode', description: 'A code of the management API' }),
      message: Type.String({ description: 'Human-readable; names the field or the rule' }),
      request_id: Type.String({ description: 'Equals the X-Request-Id response header' }),
      details: Type.Optional(Type.Object({}, { additionalProperties: true })),
    }),
  },
  { title: 'ManageErrorEnvelope', description: 'Every error response: one error object' },
);

export { Id };

export const ReportPeriodSchema = Enum(REPORT_PERIODS, { title: 'ReportPeriod' });

export const ReportSubscriptionSchema = Type.Object(
  {
    subscription_id: Type.String(),
    site_id: Type.String(),
    tenant_id: Nullable(Type.String({ description: "null: the whole site's report" })),
    email: Type.String(),
    period: ReportPeriodSchema,
    member: Type.Boolean({ description: "A member's own address: it ends with the membership" }),
    confirmed: Type.Boolean({ description: 'false: an outside address that has not followed its confirmation link; it gets nothing else' }),
    created_at: DateTime,
  },
  { title: 'ReportSubscription' },
);
