// /share/<slug>: a site's (or one tenant's) read-only dashboard for whoever holds the link. The server
// tells the page where the link stands (gone, password, open); a password, once given, sets a cookie
// scoped to this link and the page reloads to read with it.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { failureOf, fetchOrFailure, type Failure } from '../api/read.js';
import { shareReader } from '../api/reader.js';
import { Dashboard } from '../dashboard/dashboard.js';
import { Field } from '../ui/field.js';
import { Notice } from '../ui/page-shell.js';

type ShareMeta =
  | { state: 'gone' }
  | { state: 'password' }
  | { state: 'open'; site_id: string; site_name: string; tenant_id: string | null; timezone?: string };

function shareMeta(): ShareMeta {
  try {
    const content = document.querySelector('meta[name="footfall-share"]')?.getAttribute('content');
    return content ? (JSON.parse(content) as ShareMeta) : { state: 'gone' };
  } catch {
    return { state: 'gone' };
  }
}

export function SharePage({ slug }: { slug: string }) {
  const meta = useMemo(shareMeta, []);
  const reader = useMemo(() => shareReader(slug), [slug]);
  const name = meta.state === 'open' ? meta.site_name : null;
  useEffect(() => {
    if (name) document.title = `${name} · footfall`;
  }, [name]);
  if (meta.state === 'gone')
    return (
      <main class="embed-main">
        <Notice title="This link is gone">
          <p>It was revoked or has expired, or it never existed. Ask whoever shared it for a new one.</p>
        </Notice>
      </main>
    );
  if (meta.state === 'password') return <PasswordForm slug={slug} />;
  return (
    <main class="embed-main">
      <h1 class="share-title">{meta.site_name}</h1>
      <Dashboard
        reader={reader}
        siteId={meta.site_id}
        workspaceReads={false}
        sealedTenantId={meta.tenant_id}
        siteName={meta.site_name}
        timeZone={meta.timezone}
      />
    </main>
  );
}

function PasswordForm({ slug }: { slug: string }) {
  const [failure, setFailure] = useState<Failure | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const password = new FormData(e.target as HTMLFormElement).get('password');
    const res = await fetchOrFailure(`/share/${encodeURIComponent(slug)}/api/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      credentials: 'same-origin',
      body: JSON.stringify({ password }),
    });
    if (!(res instanceof Response)) return setFailure(res);
    if (res.status !== 204) return setFailure(await failureOf(res));
    location.reload();
  };
  return (
    <main class="embed-main">
      <form class="card form share-password" onSubmit={submit}>
        <h1>This dashboard is protected</h1>
        <p>Enter the password you were given with the link.</p>
        <Field label="Password">
          <input name="password" type="password" autocomplete="current-password" required />
        </Field>
        {failure ? (
          <div class="problem" role="alert">
            <p class="problem-message">{failure.message}</p>
          </div>
        ) : null}
        <div class="form-actions">
          <button type="submit" class="button">
            Show the dashboard
          </button>
        </div>
      </form>
    </main>
  );
}
