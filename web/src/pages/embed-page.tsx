// /embed: the dashboard of one site (and tenant) for an iframe, without the dashboard's frame. It
// reads /v1 with the bearer of its fragment (pages/embed-token.ts), takes the view's state from its
// query like the dashboard, and tells the parent window its height so the iframe can fit it.
import { useEffect, useMemo } from 'preact/hooks';
import { cachedRead, readKey } from '../api/read-cache.js';
import { bearerReader } from '../api/reader.js';
import { Dashboard } from '../dashboard/dashboard.js';
import { Notice } from '../ui/page-shell.js';
import { shown, useRead } from '../ui/use-read.js';
import { takeEmbedBearer } from './embed-token.js';

/** What the parent window receives: `{ type: 'footfall:height', height }` in CSS pixels. */
export const HEIGHT_MESSAGE = 'footfall:height';

function usePostHeight(): void {
  useEffect(() => {
    if (window.parent === window) return;
    const post = () => window.parent.postMessage({ type: HEIGHT_MESSAGE, height: document.documentElement.scrollHeight }, '*');
    const observer = new ResizeObserver(post);
    observer.observe(document.body);
    return () => observer.disconnect();
  }, []);
}

export function EmbedPage() {
  usePostHeight();
  const bearer = takeEmbedBearer();
  const reader = useMemo(() => (bearer ? bearerReader(bearer.token) : null), [bearer]);
  const siteId = bearer?.claims?.site_id ?? new URLSearchParams(location.search).get('site_id');
  if (!bearer || !reader) {
    return (
      <Notice title="This embed has no token">
        <p>Open it with a token in the address's fragment: <code>/embed#token=…</code>. The token never reaches the server's logs.</p>
      </Notice>
    );
  }
  if (!siteId) {
    return (
      <Notice title="Which site?">
        <p>
          Add <code>site_id=…</code> to the embed's query, or use an embed token, which names its site.
        </p>
      </Notice>
    );
  }
  return <EmbedDashboard reader={reader} siteId={siteId} embedToken={bearer.claims !== null} tenantId={bearer.claims?.tenant_id ?? null} />;
}

function EmbedDashboard({ reader, siteId, embedToken, tenantId }: { reader: ReturnType<typeof bearerReader>; siteId: string; embedToken: boolean; tenantId: string | null }) {
  // An embed token may read only the analytics routes: the site's name comes from an API token alone.
  const sites = shown(useRead(embedToken ? null : readKey('/v1/sites', {}), () => cachedRead(reader, '/v1/sites', {})));
  const name = sites?.ok ? sites.data.items.find((s) => s.siteId === siteId)?.name : undefined;
  useEffect(() => {
    if (name) document.title = `${name} · footfall`;
  }, [name]);
  return (
    <main class="embed-main">
      <h1 class="sr-only">{name ? `Analytics of ${name}` : 'Analytics'}</h1>
      <Dashboard reader={reader} siteId={siteId} workspaceReads={!embedToken} sealedTenantId={tenantId} siteName={name} />
    </main>
  );
}
