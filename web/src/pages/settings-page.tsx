// /app/settings/<workspace_id>/<section>: a workspace's sites, tenants, goals, API tokens, members and
// usage over the management API, for its owners and admins. A viewer reaches one section, Email
// reports (their own reports: every member chooses those), and is told in words that the others are
// not for their role (and sees no link to them anywhere); a plan without a part says so instead of
// failing. Each section is its own module under settings/ (embed keys and share links: embeds-settings).
import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { readSession, seg, toSignIn } from '../api/manage.js';
import type { WorkspaceDetails } from '../api/manage-types.js';
import { EmbedsSettings } from '../settings/embeds-settings.js';
import { FunnelsSettings } from '../settings/funnels-settings.js';
import { GoalsSettings } from '../settings/goals-settings.js';
import { useManaged } from '../settings/kit.js';
import { MembersSettings } from '../settings/members-settings.js';
import { ReportsSettings } from '../settings/reports-settings.js';
import { SitesSettings } from '../settings/sites-settings.js';
import { TenantsSettings } from '../settings/tenants-settings.js';
import { TokensSettings } from '../settings/tokens-settings.js';
import { UsageSettings } from '../settings/usage-settings.js';
import { AppFrame, Notice } from '../ui/page-shell.js';
import { Problem, Skeleton } from '../ui/panel-state.js';
import { shown, useRead } from '../ui/use-read.js';

const SECTIONS: Record<string, { label: string; draw: (ws: WorkspaceDetails) => ComponentChildren }> = {
  sites: { label: 'Sites', draw: (ws) => <SitesSettings ws={ws} /> },
  tenants: { label: 'Tenants', draw: (ws) => <TenantsSettings ws={ws} /> },
  goals: { label: 'Goals', draw: (ws) => <GoalsSettings ws={ws} /> },
  funnels: { label: 'Funnels', draw: (ws) => <FunnelsSettings ws={ws} /> },
  tokens: { label: 'API tokens', draw: (ws) => <TokensSettings ws={ws} /> },
  members: { label: 'Members', draw: (ws) => <MembersSettings ws={ws} /> },
  usage: { label: 'Usage', draw: (ws) => <UsageSettings ws={ws} /> },
  embeds: { label: 'Embeds and sharing', draw: (ws) => <EmbedsSettings ws={ws} /> },
  reports: { label: 'Email reports', draw: (ws) => <ReportsSettings ws={ws} /> },
};

export function SettingsPage({ workspaceId, section }: { workspaceId: string; section: string }) {
  const session = shown(useRead('session', readSession));
  const details = useManaged('/workspaces/{workspace_id}', { path: { workspace_id: workspaceId } }).result;
  const signedOut = [session, details].some((r) => r && !r.ok && r.error.status === 401);
  useEffect(() => {
    if (signedOut) toSignIn();
  }, [signedOut]);
  const ws = details?.ok ? details.data : null;
  const spec = SECTIONS[section];
  useEffect(() => {
    document.title = `${spec?.label ?? 'Settings'}${ws ? ` · ${ws.workspace.name}` : ''} · footfall`;
  }, [spec, ws]);
  const who = session?.ok ? session.data : null;
  let body: ComponentChildren;
  if (!details || signedOut) body = <Skeleton rows={4} label="the workspace" />;
  else if (!details.ok && details.error.status === 404) {
    body = (
      <Notice title="No such workspace">
        <p>This workspace does not exist, or you are not one of its members.</p>
        <p>
          <a href="/app">Go to your sites</a>
        </p>
      </Notice>
    );
  } else if (!details.ok) body = <Problem failure={details.error} />;
  else if (details.data.workspace.role === 'viewer' && section !== 'reports') {
    body = (
      <Notice title="Not allowed">
        <p>
          Settings are for the owners and admins of {details.data.workspace.name}. Your role there is viewer: you can read its dashboards
          and download their numbers, and an owner or admin can change the rest.
        </p>
        <p>
          <a href={`/app/settings/${seg(workspaceId)}/reports`}>Choose your email reports</a> or <a href="/app">go to your sites</a>.
        </p>
      </Notice>
    );
  } else if (!spec) body = <Notice title="No such settings page">{<p>Choose one of the sections above.</p>}</Notice>;
  else body = spec.draw(details.data);
  const allowed = ws !== null && ws.workspace.role !== 'viewer';
  return (
    <AppFrame session={who} title={ws ? `${ws.workspace.name} settings` : 'Settings'}>
      <div class="page-title-row">
        <h1>{ws ? `${ws.workspace.name} settings` : 'Settings'}</h1>
        {ws ? <span class="muted">{planName(ws.workspace.plan)} plan</span> : null}
      </div>
      {allowed ? (
        <nav class="tabs settings-nav" aria-label="Settings">
          {Object.entries(SECTIONS).map(([id, s]) => (
            <a key={id} href={`/app/settings/${seg(workspaceId)}/${id}`} aria-current={id === section ? 'page' : undefined}>
              {s.label}
            </a>
          ))}
        </nav>
      ) : null}
      {body}
    </AppFrame>
  );
}

export function planName(plan: string): string {
  return plan.charAt(0).toUpperCase() + plan.slice(1);
}
