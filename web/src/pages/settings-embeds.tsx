// Settings: the workspace's embed keys and its sites' share links (admins and owners; the management API
// refuses viewers in words). A key's secret and a link's url are shown once, when made; revoking either
// stops it from the next request.
import { useState } from 'preact/hooks';
import { manage } from '../api/manage.js';
import type { Failure } from '../api/read.js';
import { Field } from '../ui/field.js';
import { Problem, Skeleton } from '../ui/panel-state.js';
import { PlainTable } from '../ui/plain-table.js';
import { shown, useRead } from '../ui/use-read.js';
import { CreateForm } from './settings-forms.js';

export const EMBEDS_SECTION = { id: 'embeds', label: 'Embeds and sharing' } as const;

interface EmbedKeyRow {
  key_id: string;
  origins: string[];
  created_at: string;
  revoked_at: string | null;
}
interface ShareRow {
  share_id: string;
  site_id: string;
  tenant_id: string | null;
  password: boolean;
  expires_at: string | null;
  state: 'active' | 'revoked' | 'expired';
}
interface SiteRow {
  site_id: string;
  name: string;
}

const list = (v: FormDataEntryValue | null) => String(v ?? '').split(',').map((s) => s.trim()).filter(Boolean);
const optional = (v: FormDataEntryValue | null) => (String(v ?? '').trim() === '' ? undefined : String(v).trim());

export function EmbedSettings({ workspaceId }: { workspaceId: string }) {
  const ws = `/workspaces/${encodeURIComponent(workspaceId)}`;
  const [version, setVersion] = useState(0);
  const keys = shown(useRead(`${ws}/embed-keys#${version}`, () => manage<{ embed_keys: EmbedKeyRow[] }>('GET', `${ws}/embed-keys`)));
  const sites = shown(useRead(`${ws}/sites`, () => manage<{ sites: SiteRow[] }>('GET', `${ws}/sites`)));
  const refresh = () => setVersion((v) => v + 1);
  return (
    <>
      <section class="panel" aria-labelledby="embed-keys-title">
        <h2 id="embed-keys-title">Embed keys</h2>
        <p>Your backend signs embed tokens with a key's secret; only the origins listed may frame the embed.</p>
        {!keys ? (
          <Skeleton rows={2} label="embed keys" />
        ) : !keys.ok ? (
          <Problem failure={keys.error} />
        ) : (
          <PlainTable
            label="Embed keys"
            head={['Key', 'Origins', 'Created', '']}
            rows={keys.data.embed_keys.map((k) => [
              k.key_id,
              k.origins.join(', ') || 'none (not framable)',
              k.created_at,
              k.revoked_at ? `revoked ${k.revoked_at}` : <Revoke label={`Revoke ${k.key_id}`} path={`${ws}/embed-keys/${encodeURIComponent(k.key_id)}/revoke`} done={refresh} />,
            ])}
          />
        )}
        <CreateForm
          title="Create an embed key"
          submitLabel="Create the key"
          send={async (f) => {
            const r = await manage<{ key_id: string; secret: string }>('POST', `${ws}/embed-keys`, { origins: list(f.get('origins')) });
            if (!r.ok) return { failure: r.error };
            refresh();
            return { shown: `${r.data.key_id}: ${r.data.secret}` };
          }}
        >
          <Field label="Origins that may frame it, separated by commas">
            <input name="origins" placeholder="https://app.example.com" />
          </Field>
        </CreateForm>
      </section>
      {sites?.ok
        ? sites.data.sites.map((site) => <SiteShares key={site.site_id} site={site} />)
        : sites && !sites.ok
          ? <Problem failure={sites.error} />
          : null}
    </>
  );
}

function SiteShares({ site }: { site: SiteRow }) {
  const path = `/sites/${encodeURIComponent(site.site_id)}/shares`;
  const [version, setVersion] = useState(0);
  const shares = shown(useRead(`${path}#${version}`, () => manage<{ shares: ShareRow[] }>('GET', path)));
  const refresh = () => setVersion((v) => v + 1);
  const titleId = `shares-${site.site_id}`;
  return (
    <section class="panel" aria-labelledby={titleId}>
      <h2 id={titleId}>Share links of {site.name}</h2>
      {!shares ? (
        <Skeleton rows={2} label="share links" />
      ) : !shares.ok ? (
        <Problem failure={shares.error} />
      ) : (
        <PlainTable
          label={`Share links of ${site.name}`}
          head={['Link', 'Tenant', 'Password', 'Expires', '']}
          rows={shares.data.shares.map((s) => [
            s.share_id,
            s.tenant_id ?? 'all',
            s.password ? 'yes' : 'no',
            s.expires_at ?? 'never',
            s.state === 'active' ? <Revoke label={`Revoke ${s.share_id}`} path={`${path}/${encodeURIComponent(s.share_id)}/revoke`} done={refresh} /> : s.state,
          ])}
        />
      )}
      <CreateForm
        title="Create a share link"
        submitLabel="Create the link"
        send={async (f) => {
          const r = await manage<{ url: string }>('POST', path, { tenant_id: optional(f.get('tenant_id')), password: optional(f.get('password')), expires_at: optional(f.get('expires_at')) });
          if (!r.ok) return { failure: r.error };
          refresh();
          return { shown: r.data.url };
        }}
      >
        <Field label="Tenant id (optional: the whole site)">
          <input name="tenant_id" />
        </Field>
        <Field label="Password (optional, at least 10 characters)">
          <input name="password" type="password" autocomplete="new-password" />
        </Field>
        <Field label="Expires (optional, e.g. 2026-01-31T00:00:00Z)">
          <input name="expires_at" />
        </Field>
      </CreateForm>
    </section>
  );
}

function Revoke({ label, path, done }: { label: string; path: string; done: () => void }) {
  const [failure, setFailure] = useState<Failure | null>(null);
  return (
    <>
      <button
        type="button"
        class="quiet-button"
        aria-label={label}
        onClick={async () => {
          const r = await manage('POST', path);
          if (r.ok) done();
          else setFailure(r.error);
        }}
      >
        Revoke
      </button>
      {failure ? <Problem failure={failure} /> : null}
    </>
  );
}
