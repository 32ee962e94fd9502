// Mailed reports of a workspace's sites (docs/decisions/reports.md): every member subscribes their own
// address to a site's (or one tenant's) weekly or monthly report and ends it; admins and owners see
// every subscription of the site, add an outside address (which gets a confirmation link first) and end
// any. The rights are the service's (services/report-mail/subscriptions.ts). A server without a report
// store answers 404 here, as for a route it does not have; one without mail says so (409).
import { Type } from '@sinclair/typebox';
import { ManageError } from '../../../domain/manage-errors.js';
import { notFound, workspaceAccess } from '../../../services/manage/access.js';
import {
  listSubscriptions,
  subscribe,
  subscriptionJson,
  unsubscribe,
  type SubscriptionDeps,
} from '../../../services/report-mail/subscriptions.js';
import type { AppApiDeps } from '../app-api-deps.js';
import { defineAppRoute } from '../define-app-route.js';
import { Email, Id, ReportPeriodSchema, ReportSubscriptionSchema } from '../schemas.js';
import { SiteParams, SubscriptionParams } from './params.js';

/** The service's deps, or 404 when this server keeps no report subscriptions. */
function reportDeps(deps: AppApiDeps): SubscriptionDeps {
  if (!deps.reports) throw new ManageError('NOT_FOUND', 'This server keeps no mailed reports.');
  return { catalog: deps.catalog, reports: deps.reports, clock: deps.clock, publicUrl: deps.config.publicUrl, mailer: deps.mailer };
}

const SubscribedSchema = Type.Intersect(
  [
    ReportSubscriptionSchema,
    Type.Object({
      created: Type.Boolean({ description: 'false: the address already had this subscription, which is answered unchanged' }),
      confirmation_mailed: Type.Optional(
        Type.Boolean({ description: "An outside address's confirmation link: whether the mail server took the mail" }),
      ),
    }),
  ],
  { title: 'ReportSubscribed' },
);

export const reportRoutes = [
  defineAppRoute({
    method: 'GET',
    url: '/sites/:site_id/reports',
    operationId: 'listReportSubscriptions',
    summary: "The site's report subscriptions: all of them for admins and owners, one's own for the others",
    tag: 'Reports',
    auth: 'session',
    guard: { on: 'site', need: 'viewer' },
    params: SiteParams,
    status: 200,
    response: Type.Object({
      mail: Type.Boolean({ description: 'Whether this server sends mail (FOOTFALL_SMTP_URL); without it nothing can be subscribed' }),
      subscriptions: Type.Array(ReportSubscriptionSchema),
    }),
    errors: [404],
    handler: async ({ deps, access }) => {
      const d = reportDeps(deps);
      return { mail: d.mailer !== undefined, subscriptions: (await listSubscriptions(d, access)).map(subscriptionJson) };
    },
  }),
  defineAppRoute({
    method: 'POST',
    url: '/sites/:site_id/reports',
    operationId: 'subscribeToReports',
    summary: "Subscribe one's own address, or (admins and owners) an outside one, to the site's mailed report",
    description:
      'Without `email`: the signed-in member, confirmed at once. With `email`: an outside address (admins and owners), mailed a confirmation link first. ' +
      "`tenant_id`: that tenant's report only. 409 when the server sends no mail.",
    tag: 'Reports',
    auth: 'session',
    guard: { on: 'site', need: 'viewer' },
    params: SiteParams,
    body: Type.Object(
      { period: ReportPeriodSchema, tenant_id: Type.Optional(Id('A tenant of the site')), email: Type.Optional(Email) },
      { additionalProperties: false },
    ),
    status: 201,
    response: SubscribedSchema,
    errors: [404, 409],
    handler: async ({ deps, access, body }) => {
      const d = reportDeps(deps);
      let tenant = null;
      if (body.tenant_id !== undefined) {
        tenant = await deps.catalog.getTenant(body.tenant_id);
        if (!tenant || tenant.siteId !== access.site.id) throw notFound('tenant', body.tenant_id);
      }
      const self = body.email === undefined;
      const { subscription, created, confirmation } = await subscribe(
        d,
        { ...access, tenant },
        { period: body.period, self, ...(self ? {} : { email: body.email }) },
      );
      return { ...subscriptionJson(subscription), created, ...(confirmation ? { confirmation_mailed: confirmation.mailed } : {}) };
    },
  }),
  defineAppRoute({
    method: 'DELETE',
    url: '/reports/:subscription_id',
    operationId: 'unsubscribeFromReports',
    summary: "End a report subscription: one's own, or (admins and owners) any of the workspace's",
    tag: 'Reports',
    auth: 'session',
    params: SubscriptionParams,
    status: 204,
    errors: [404],
    handler: async ({ deps, actor, params }) => {
      const d = reportDeps(deps);
      const id = params.subscription_id;
      const hidden = () => notFound('report subscription', id);
      const sub = await d.reports.getSubscription(id);
      if (!sub) throw hidden();
      // the workspace's role of the caller; a workspace they are not in hides the subscription
      const access = await workspaceAccess(deps, actor, sub.workspaceId, 'viewer', hidden);
      await unsubscribe(d, access, id);
      return undefined;
    },
  }),
];
