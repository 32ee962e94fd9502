// /app/sites/<site_id>: the dashboard of one site for a signed-in member of its workspace. The numbers
// come from /app/api/v1 with the session cookie; the frame (the site's name, the person's role, the
// plan's dashboard rules, the collection script) from GET /app/api/sites/<id>, read alongside them.
import { useEffect, useMemo } from 'preact/hooks';
import { manage, readSession, seg, toSignIn } from '../api/manage.js';
import { sessionReader } from '../api/reader.js';
import { PENDING_PRODUCT, rulesProduct } from '../dashboard/context.js';
import { Dashboard } from '../dashboard/dashboard.js';
import { FirstEvent, LiveBadge, useLive } from '../dashboard/live.js';
import { AppFrame, Notice } from '../ui/page-shell.js';
import { Problem } from '../ui/panel-state.js';
import { SiteSwitcher } from '../ui/site-switcher.js';
import { shown, useRead } from '../ui/use-read.js';

export function SitePage({ siteId }: { siteId: string }) {
  const reader = useMemo(sessionReader, []);
  const session = shown(useRead('session', readSession));
  const frame = shown(useRead(`site:${siteId}`, () => manage('GET', '/sites/{site_id}', { path: { site_id: siteId } })));
  const live = useLive(siteId);
  const signedOut = (session && !session.ok && session.error.status === 401) || (frame && !frame.ok && frame.error.status === 401);
  useEffect(() => {
    if (signedOut) toSignIn();
  }, [signedOut]);
  const data = frame?.ok ? frame.data : null;
  const name = data?.site.name;
  useEffect(() => {
    document.title = `${name ?? 'Site'} · footfall`;
  }, [name]);
  const who = session?.ok ? session.data : null;
  if (frame && !frame.ok && frame.error.status === 404) {
    return (
      <AppFrame session={who} title="No such site">
        <Notice title="No such site">
          <p>This site does not exist, or it is not in a workspace you belong to.</p>
          <p>
            <a href="/app">Go to your sites</a>
          </p>
        </Notice>
      </AppFrame>
    );
  }
  const workspace = data?.workspace;
  return (
    <AppFrame
      session={who}
      title={name ?? ''}
      headerExtra={name && who ? <SiteSwitcher siteId={siteId} name={name} workspaces={who.workspaces} /> : undefined}
    >
      <div class="page-title-row">
        <h1>{name ?? 'Loading the site…'}</h1>
        {workspace ? <span class="muted">{workspace.name}</span> : null}
        <LiveBadge live={live} />
        {workspace && workspace.role !== 'viewer' ? (
          <a class="title-link" href={`/app/settings/${seg(workspace.workspace_id)}/sites`}>
            Settings
          </a>
        ) : workspace ? (
          <a class="title-link" href={`/app/settings/${seg(workspace.workspace_id)}/reports`}>
            Email reports
          </a>
        ) : null}
      </div>
      {frame && !frame.ok && !signedOut ? <Problem failure={frame.error} /> : null}
      {/* a suspended site collects nothing: the note at the top says so, not "waiting for the first event" */}
      {data && data.site.status !== 'SUSPENDED' ? (
        <FirstEvent live={live} domain={data.site.hostnames[0] ?? data.site.domain_scope ?? ''} scriptUrl={data.tracker_script_url} />
      ) : null}
      <Dashboard
        reader={reader}
        siteId={siteId}
        workspaceReads
        product={data ? rulesProduct(data.dashboard) : PENDING_PRODUCT}
        siteName={name}
        timeZone={data?.site.timezone}
        suspended={data?.site.status === 'SUSPENDED'}
        manageHref={workspace && workspace.role !== 'viewer' ? `/app/settings/${seg(workspace.workspace_id)}/sites` : undefined}
        nothingYet={data?.site.status === 'ACTIVE' && live !== null && 'last_event_at' in live && live.last_event_at === null}
      />
    </AppFrame>
  );
}
