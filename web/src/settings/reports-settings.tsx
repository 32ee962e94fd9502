// Settings > Email reports: per site, the person's own weekly and monthly report (a checkbox each: checked
// subscribes their sign-in address, unchecked ends it), every subscription of the site with a way to
// remove it, and a form to add an outside address, which is mailed a confirmation link first. A server
// that sends no mail says so, and offers nothing to change.
import { manage, readSession } from '../api/manage.js';
import type { ReportPeriod, ReportSubscription, SiteRecord, WorkspaceDetails } from '../api/manage-types.js';
import type { Failure } from '../api/read.js';
import { Field, textOf } from '../ui/field.js';
import { Problem } from '../ui/panel-state.js';
import { shown, useRead } from '../ui/use-read.js';
import { useEffect, useState } from 'preact/hooks';
import { ActionButton, ListState, Section, SendForm, useManaged } from './kit.js';
import { useSites } from './site-names.js';

const PERIODS: Record<ReportPeriod, string> = { week: 'Weekly', month: 'Monthly' };

export function ReportsSettings({ ws }: { ws: WorkspaceDetails }) {
  const id = ws.workspace.workspace_id;
  const { sites } = useSites(id);
  return (
    <Section
      id="reports"
      title="Email reports"
      note={<span class="muted">A summary of each site's visitors, mailed after each week or month.</span>}
    >
      {sites.length === 0 ? <p class="empty">No sites yet.</p> : <MailGate ws={ws} sites={sites} />}
    </Section>
  );
}

/** The first site's answer says whether this server sends mail; without it nothing else is shown. */
function MailGate({ ws, sites }: { ws: WorkspaceDetails; sites: SiteRecord[] }) {
  const probe = useManaged('/sites/{site_id}/reports', { path: { site_id: sites[0].site_id } });
  return (
    <ListState listed={probe} label="email reports">
      {(data) =>
        data.mail ? (
          <div class="site-cards">
            {sites.map((s) => (
              <SiteReports key={s.site_id} ws={ws} site={s} />
            ))}
          </div>
        ) : (
          <div class="problem" data-code="NO_MAIL">
            <p class="problem-title">This server sends no mail</p>
            <p class="problem-message">
              Reports cannot be mailed until the operator sets FOOTFALL_SMTP_URL (and FOOTFALL_MAIL_FROM) and restarts the server.
            </p>
          </div>
        )
      }
    </ListState>
  );
}

function SiteReports({ ws, site }: { ws: WorkspaceDetails; site: SiteRecord }) {
  const listed = useManaged('/sites/{site_id}/reports', { path: { site_id: site.site_id } });
  const tenants = useManaged('/workspaces/{workspace_id}/tenants', { path: { workspace_id: ws.workspace.workspace_id } });
  const session = shown(useRead('session', readSession));
  const me = session?.ok ? session.data.user.email.toLowerCase() : null;
  const admin = ws.workspace.role === 'owner' || ws.workspace.role === 'admin';
  const siteTenants = tenants.result?.ok ? tenants.result.data.tenants.filter((t) => t.site_id === site.site_id) : [];
  const tenantName = (tid: string | null) => (tid === null ? 'whole site' : (siteTenants.find((t) => t.tenant_id === tid)?.name ?? tid));
  const head = `reports-${site.site_id}`;
  return (
    <article class="panel site-card" aria-labelledby={head} data-site={site.site_id}>
      <header class="panel-head">
        <h3 id={head}>{site.name}</h3>
      </header>
      <ListState listed={listed} label={`the reports of ${site.name}`}>
        {(data) => {
          const own = (p: ReportPeriod) => data.subscriptions.find((s) => s.email === me && s.period === p && s.tenant_id === null) ?? null;
          return (
            <>
              <OwnReports site={site} own={own} email={me} reload={listed.reload} />
              {admin ? <AllReports site={site} subs={data.subscriptions} tenantName={tenantName} reload={listed.reload} /> : null}
            </>
          );
        }}
      </ListState>
      {admin ? (
        <SendForm
          title="Add an outside address"
          submitLabel="Add the address"
          send={(f) => {
            const tenant = textOf(f, 'tenant_id');
            return manage('POST', '/sites/{site_id}/reports', {
              path: { site_id: site.site_id },
              body: { email: textOf(f, 'email'), period: textOf(f, 'period') as ReportPeriod, ...(tenant ? { tenant_id: tenant } : {}) },
            });
          }}
          shown={(r) =>
            r.confirmed ? (
              <p>{r.email} already gets this report.</p>
            ) : r.confirmation_mailed === false ? (
              <p>{r.email} was added, but its confirmation link could not be mailed. Remove it and add it again later.</p>
            ) : (
              <p>A confirmation link was mailed to {r.email}. Nothing else is sent there until it is followed.</p>
            )
          }
          after={listed.reload}
        >
          <Field label="Email address">
            <input name="email" type="email" required maxLength={254} autocomplete="off" />
          </Field>
          <Field label="Report">
            <select name="period">
              {Object.entries(PERIODS).map(([k, v]) => (
                <option key={k} value={k}>
                  {v}
                </option>
              ))}
            </select>
          </Field>
          {siteTenants.length > 0 ? (
            <Field label="Of">
              <select name="tenant_id">
                <option value="">The whole site</option>
                {siteTenants.map((t) => (
                  <option key={t.tenant_id} value={t.tenant_id}>
                    Tenant {t.name}
                  </option>
                ))}
              </select>
            </Field>
          ) : null}
        </SendForm>
      ) : null}
    </article>
  );
}

/** The person's own reports of the whole site: a checkbox per period. */
function OwnReports({
  site,
  own,
  email,
  reload,
}: {
  site: SiteRecord;
  own: (p: ReportPeriod) => ReportSubscription | null;
  email: string | null;
  reload(): void;
}) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  // what was clicked shows at once, until the list read again agrees (or the change is refused)
  const [wanted, setWanted] = useState<Partial<Record<ReportPeriod, boolean>>>({});
  const isOn = (p: ReportPeriod) => own(p) !== null;
  useEffect(() => {
    const settled = (Object.keys(wanted) as ReportPeriod[]).filter((p) => wanted[p] === isOn(p));
    if (settled.length) setWanted((w) => Object.fromEntries(Object.entries(w).filter(([p]) => !settled.includes(p as ReportPeriod))));
  });
  const toggle = async (period: ReportPeriod) => {
    const sub = own(period);
    setWanted((w) => ({ ...w, [period]: sub === null }));
    setBusy(true);
    const r = sub
      ? await manage('DELETE', '/reports/{subscription_id}', { path: { subscription_id: sub.subscription_id } })
      : await manage('POST', '/sites/{site_id}/reports', { path: { site_id: site.site_id }, body: { period } });
    setBusy(false);
    setFailure(r.ok ? null : r.error);
    if (!r.ok) setWanted((w) => Object.fromEntries(Object.entries(w).filter(([p]) => p !== period)));
    reload();
  };
  return (
    <fieldset class="own-reports">
      <legend>Mail me{email ? ` (${email})` : ''}</legend>
      {(Object.keys(PERIODS) as ReportPeriod[]).map((p) => (
        <label key={p} class="check">
          <input type="checkbox" checked={wanted[p] ?? isOn(p)} disabled={busy} onChange={() => toggle(p)} /> {PERIODS[p]} report
        </label>
      ))}
      {failure ? <Problem failure={failure} title="Not changed" alert /> : null}
    </fieldset>
  );
}

/** Every subscription of the site, for its admins and owners. */
function AllReports({
  site,
  subs,
  tenantName,
  reload,
}: {
  site: SiteRecord;
  subs: ReportSubscription[];
  tenantName(id: string | null): string;
  reload(): void;
}) {
  return (
    <>
      <h4>Everyone who gets them</h4>
      {subs.length === 0 ? (
        <p class="empty">Nobody gets the reports of {site.name} yet.</p>
      ) : (
        <ul class="record-list">
          {subs.map((s) => (
            <li key={s.subscription_id} class="record" data-subscription={s.subscription_id}>
              <div class="record-main">
                <span>{s.email}</span>
                <span class="muted">
                  {PERIODS[s.period]} · {tenantName(s.tenant_id)} ·{' '}
                  {s.confirmed ? (s.member ? 'member' : 'confirmed') : 'awaiting confirmation'}
                </span>
              </div>
              <ActionButton
                quiet
                label="Remove"
                run={() => manage('DELETE', '/reports/{subscription_id}', { path: { subscription_id: s.subscription_id } })}
                after={reload}
                confirm={`Stop mailing ${s.email}?`}
              />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
