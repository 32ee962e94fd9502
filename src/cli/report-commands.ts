// `footfall report subscribe|list|unsubscribe|send`: the mailed reports of a site (docs/decisions/reports.md),
// through the same use-cases as the dashboard, with the operator's rights. `send` sends every report
// due at --now (default: now) not sent yet: through the running server when it owns the embedded
// store, else with this process's own reads, for cron.
import type { Command } from 'commander';
import { systemClock } from '../domain/clock.js';
import { REPORT_PERIODS } from '../domain/report-periods.js';
import { CatalogError, type CatalogStore } from '../ports/catalog-store.js';
import { OPERATOR, siteAccess } from '../services/manage/access.js';
import { listSubscriptions, subscribe, subscriptionJson, unsubscribe } from '../services/report-mail/subscriptions.js';
import type { SweepResult } from '../services/report-mail/send-reports.js';
import { openMailer } from '../container.js';
import { commandConfig, withStoreOptions } from './options.js';
import { CliError, emit, fail } from './output.js';
import { actionParams, Args, asCliError, group, run, type CommandContext, type Opts, type Result } from './catalog-command-kit.js';
import { lines } from './catalog-json.js';

export function registerReportCommands(program: Command): void {
  const report = group(program, 'report', 'mailed weekly and monthly reports of a site');
  withStoreOptions(
    report
      .command('subscribe')
      .description("mail a site's (or a tenant's) report to an address; it confirms by a mailed link first, unless --confirmed"),
  )
    .option('--site <id>', 'site id')
    .option('--tenant <id>', "a tenant of the site: the report shows that tenant's traffic only")
    .option('--email <email>', 'the address to mail')
    .option('--period <period>', REPORT_PERIODS.join('|'))
    .option('--confirmed', "the address is vouched for (a member's own): no confirmation mail")
    .action(run(subscribeCommand));
  withStoreOptions(report.command('list').description('list the report subscriptions of a site'))
    .option('--site <id>', 'site id')
    .action(run(listCommand));
  withStoreOptions(report.command('unsubscribe').description('end a report subscription').argument('<subscription-id>')).action(
    run(unsubscribeCommand),
  );
  withStoreOptions(
    report
      .command('send')
      .description('send every report due at --now (default now) not sent yet, and the retries due; for cron and tests')
      .option('--now <instant>', 'ISO 8601 instant, e.g. 2026-12-07T06:00:00Z'),
  ).action(sendCommand);
}

async function subscribeCommand(catalog: CatalogStore, opts: Opts, _args: string[], ctx: CommandContext): Promise<Result> {
  const a = new Args(opts);
  const siteId = a.need('site', '--site <id>');
  const email = a.need('email', '--email <email>');
  const period = a.oneOf('--period', a.need('period', `--period ${REPORT_PERIODS.join('|')}`), REPORT_PERIODS);
  const tenantId = a.optional('tenant');
  a.done();
  const deps = { catalog, people: ctx.control.people, clock: systemClock };
  const access = await siteAccess(deps, OPERATOR, siteId, 'owner');
  const tenant = tenantId === undefined ? null : await catalog.getTenant(tenantId);
  if (tenantId !== undefined && (!tenant || tenant.siteId !== siteId)) throw new CatalogError('NOT_FOUND', `unknown tenant "${tenantId}"`);
  const mailer = await openMailer(ctx.config);
  try {
    const r = await subscribe(
      { ...deps, reports: ctx.control.reports, publicUrl: ctx.config.publicUrl, mailer },
      { ...access, tenant },
      { email, period, self: false, confirmed: opts.confirmed === true },
    );
    const s = r.subscription;
    const what = `${s.period === 'week' ? 'weekly' : 'monthly'} report of ${s.siteId}${s.tenantId ? ` (tenant ${s.tenantId})` : ''}`;
    const head = r.created
      ? `Subscribed ${s.email} to the ${what}: ${s.id}.`
      : `${s.email} was already subscribed to the ${what}: ${s.id}.`;
    const tail =
      r.confirmation === null
        ? s.confirmedAt !== null
          ? 'Confirmed: it gets the reports due from now on.'
          : ''
        : r.confirmation.mailed
          ? `A confirmation link was mailed to ${s.email}; nothing else is sent before it is followed.`
          : `The confirmation mail was not sent: ${r.confirmation.reason}. Subscribe again to send a new link.`;
    return {
      json: { ...subscriptionJson(s), created: r.created, ...(r.confirmation ? { confirmation_mailed: r.confirmation.mailed } : {}) },
      text: `${head}\n${tail}`.trim(),
    };
  } finally {
    await mailer?.close();
  }
}

async function listCommand(catalog: CatalogStore, opts: Opts, _args: string[], ctx: CommandContext): Promise<Result> {
  const a = new Args(opts);
  const siteId = a.need('site', '--site <id>');
  a.done();
  const access = await siteAccess({ catalog, people: ctx.control.people }, OPERATOR, siteId, 'owner');
  const subs = await listSubscriptions({ reports: ctx.control.reports }, access);
  return {
    json: { subscriptions: subs.map(subscriptionJson) },
    text: lines(
      subs,
      'No report subscriptions.',
      (s) =>
        `${s.id}  ${s.email}  ${s.period}${s.tenantId ? `  tenant ${s.tenantId}` : ''}  ${s.confirmedAt ? 'confirmed' : 'awaiting confirmation'}`,
    ),
  };
}

async function unsubscribeCommand(catalog: CatalogStore, _opts: Opts, [id]: string[], ctx: CommandContext): Promise<Result> {
  const sub = await ctx.control.reports.getSubscription(id);
  if (!sub) throw new CatalogError('NOT_FOUND', `unknown report subscription "${id}"`);
  const deps = { catalog, people: ctx.control.people };
  const access = await siteAccess(deps, OPERATOR, sub.siteId, 'owner');
  await unsubscribe({ reports: ctx.control.reports }, access, id);
  return { json: { subscription_id: id, unsubscribed: true }, text: `Unsubscribed ${sub.email} (${id}).` };
}

function sendText(r: SweepResult): string {
  const parts = [`Sent ${r.sent} report${r.sent === 1 ? '' : 's'}.`];
  if (r.retrying) parts.push(`${r.retrying} not sent, tried again later (see the server's log or this command's warnings).`);
  if (r.failed) parts.push(`${r.failed} not sent and given up.`);
  return parts.join(' ');
}

async function sendCommand(...params: unknown[]): Promise<void> {
  const { opts, json } = actionParams(params);
  try {
    const nowMs = opts.now === undefined ? Date.now() : Date.parse(String(opts.now));
    if (!Number.isFinite(nowMs) || (opts.now !== undefined && !/^\d{4}-\d\d-\d\dT/.test(String(opts.now))))
      throw new CliError(`--now must be an ISO 8601 instant such as 2026-12-07T06:00:00Z, got "${String(opts.now)}"`);
    const config = commandConfig(opts);
    if (config.smtpUrl === undefined)
      throw new CliError('this server sends no mail: set FOOTFALL_SMTP_URL and FOOTFALL_MAIL_FROM to send reports', 'MAIL_NOT_CONFIGURED');
    const { AdminClient } = await import('../ingest/admin/admin-socket-client.js');
    const client = config.eventsUrl === undefined ? await AdminClient.connect(config.dataDir) : null;
    let result: SweepResult;
    if (client) {
      try {
        result = (await client.sendReports(nowMs)) as SweepResult;
      } finally {
        client.close();
      }
    } else {
      const [{ buildContainer }, { sendDueReports }] = await Promise.all([
        import('../container.js'),
        import('../services/report-mail/send-reports.js'),
      ]);
      const c = await buildContainer(config);
      try {
        if (!c.mailer || !c.reports || !c.people || !c.analytics) throw new CliError('the stores to send reports from could not be opened');
        const warn = (obj: object, msg?: string) => process.stderr.write(`warning: ${msg ?? ''} ${JSON.stringify(obj)}\n`);
        result = await sendDueReports({ ...c, mailer: c.mailer, reports: c.reports, people: c.people }, nowMs, { info() {}, warn });
      } finally {
        await c.close();
      }
    }
    const { readMs: _, ...counts } = result;
    emit(json, { now: new Date(nowMs).toISOString(), ...counts }, sendText(result));
  } catch (err) {
    fail(json, asCliError(err));
  }
}
