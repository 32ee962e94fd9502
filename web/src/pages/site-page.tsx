// /app/sites/<site_id>: the dashboard of one site for a signed-in person (session cookie, /app/api).
import { useEffect, useMemo } from 'preact/hooks';
import { readSession } from '../api/manage.js';
import { cachedRead, readKey } from '../api/read-cache.js';
import { sessionReader } from '../api/reader.js';
import { CurrentVisitors } from '../dashboard/current-visitors.js';
import { Dashboard } from '../dashboard/dashboard.js';
import { AppFrame } from '../ui/page-shell.js';
import { shown, useRead } from '../ui/use-read.js';

export function SitePage({ siteId }: { siteId: string }) {
  const reader = useMemo(sessionReader, []);
  const session = shown(useRead('session', readSession));
  const sites = shown(useRead(readKey('/v1/sites', {}), () => cachedRead(reader, '/v1/sites', {})));
  useEffect(() => {
    if (session && !session.ok && session.error.status === 401) {
      location.assign(`/app?next=${encodeURIComponent(location.pathname + location.search)}`);
    }
  }, [session]);
  const site = sites?.ok ? sites.data.items.find((s) => s.siteId === siteId) : undefined;
  const name = site?.name ?? 'Site';
  useEffect(() => {
    document.title = `${name} · footfall`;
  }, [name]);
  return (
    <AppFrame session={session?.ok ? session.data : null} title={name}>
      <div class="page-title-row">
        <h1>{name}</h1>
        <CurrentVisitors siteId={siteId} />
      </div>
      <Dashboard reader={reader} siteId={siteId} workspaceReads siteName={site?.name} />
    </AppFrame>
  );
}
