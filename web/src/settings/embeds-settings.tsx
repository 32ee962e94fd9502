// Settings > Embeds and sharing: the workspace's embed keys (what its backend signs embed tokens with;
// the secret shown once, here) and its share links, listed by site, with one form to make one (a site, a
// tenant of it or the whole site, a password, a last day; the url shown once: only its hash is kept),
// each revoked from the next request. Owners and admins; the management API refuses the others.
import { useState } from 'preact/hooks';
import { manage } from '../api/manage.js';
import type { SiteRecord, WorkspaceDetails } from '../api/manage-types.js';
import { CopyField } from '../ui/copy-field.js';
import { Field } from '../ui/field.js';
import { ActionButton, day, listField, ListState, Section, SendForm, SiteField, useManaged, when } from './kit.js';
import { useSites } from './site-names.js';

const optional = (v: FormDataEntryValue | null) => (String(v ?? '').trim() === '' ? undefined : String(v).trim());

export function EmbedsSettings({ ws }: { ws: WorkspaceDetails }) {
  const id = ws.workspace.workspace_id;
  const keys = useManaged('/workspaces/{workspace_id}/embed-keys', { path: { workspace_id: id } });
  const { sites } = useSites(id);
  // a link made: the lists read again
  const [made, setMade] = useState(0);
  return (
    <>
      <Section
        id="embed-keys"
        title="Embed keys"
        note={<span class="muted">Your backend signs embed tokens with a key's secret; only the origins listed may frame the embed.</span>}
      >
        <ListState listed={keys} label="embed keys">
          {(data) =>
            data.embed_keys.length === 0 ? (
              <p class="empty">No embed keys yet.</p>
            ) : (
              <ul class="record-list">
                {data.embed_keys.map((k) => (
                  <li key={k.key_id} class={`record${k.revoked_at ? ' revoked' : ''}`} data-embed-key={k.key_id}>
                    <div class="record-main">
                      <code>{k.key_id}</code>
                      <span class="muted">
                        {k.origins.join(', ') || 'no origin (not framable)'} · created {day(k.created_at)}
                      </span>
                      {k.revoked_at ? <span class="badge off">Revoked {when(k.revoked_at)}</span> : null}
                    </div>
                    {k.revoked_at ? null : (
                      <div class="card-actions">
                        <ActionButton
                          label="Revoke"
                          run={() =>
                            manage('POST', '/workspaces/{workspace_id}/embed-keys/{key_id}/revoke', {
                              path: { workspace_id: id, key_id: k.key_id },
                            })
                          }
                          after={keys.reload}
                          confirm={`Revoke ${k.key_id}? Its embed tokens are refused from now on.`}
                        />
                      </div>
                    )}
                  </li>
                ))}
              </ul>
            )
          }
        </ListState>
        <div class="panel form-panel">
          <SendForm
            title="Create an embed key"
            submitLabel="Create the key"
            send={(f) =>
              manage('POST', '/workspaces/{workspace_id}/embed-keys', {
                path: { workspace_id: id },
                body: { origins: listField(f.get('origins')) },
              })
            }
            shown={(k) => (
              <>
                <p>
                  The secret of <code>{k.key_id}</code>: copy it now, it is not shown again.
                </p>
                <CopyField label="Secret" value={k.secret} block />
              </>
            )}
            after={keys.reload}
          >
            <Field label="Origins that may frame it (separated by commas or spaces)">
              <input name="origins" placeholder="https://app.example.com" />
            </Field>
          </SendForm>
        </div>
      </Section>
      <Section
        id="shares"
        title="Share links"
        note={<span class="muted">A link opens a site's dashboard to anyone who has it (and its password, if it has one).</span>}
      >
        {sites.map((s) => (
          <SiteShares key={`${s.site_id}:${made}`} site={s} />
        ))}
        {sites.length ? <ShareForm workspaceId={id} sites={sites} after={() => setMade(made + 1)} /> : null}
      </Section>
    </>
  );
}

/**
 * The one form that makes a share link: the site, then one of its tenants or the whole site (a picker,
 * not an id to type), an optional password, and an optional last day (the link works to the end of that
 * day, the person's own time).
 */
function ShareForm({ workspaceId, sites, after }: { workspaceId: string; sites: readonly SiteRecord[]; after: () => void }) {
  const [siteId, setSiteId] = useState(sites[0].site_id);
  const tenants = useManaged('/workspaces/{workspace_id}/tenants', { path: { workspace_id: workspaceId } });
  const ofSite = (tenants.result?.ok ? tenants.result.data.tenants : []).filter((t) => t.site_id === siteId && t.status === 'ACTIVE');
  const today = new Date().toLocaleDateString('en-CA');
  return (
    <div class="panel form-panel">
      <SendForm
        title="Create a share link"
        submitLabel="Create the link"
        send={(f) => {
          const last = optional(f.get('expires_on'));
          return manage('POST', '/sites/{site_id}/shares', {
            path: { site_id: siteId },
            body: {
              tenant_id: optional(f.get('tenant_id')),
              password: optional(f.get('password')),
              // the end of the chosen day, in the person's own time
              expires_at: last ? new Date(`${last}T23:59:59.999`).toISOString() : undefined,
            },
          });
        }}
        shown={(r) => (
          <>
            <p>Copy the link now: it is not shown again. Only its hash is kept, so the list above names the link by its id.</p>
            <CopyField label="Link" value={r.url} block />
          </>
        )}
        after={after}
      >
        <SiteField sites={sites} value={siteId} onChange={setSiteId} />
        <Field label="Tenant">
          <select name="tenant_id" key={siteId}>
            <option value="">The whole site</option>
            {ofSite.map((t) => (
              <option key={t.tenant_id} value={t.tenant_id}>
                {t.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Password (optional, at least 10 characters)">
          <input name="password" type="password" autocomplete="new-password" />
        </Field>
        <Field label="Last day (optional: no expiry)">
          <input name="expires_on" type="date" min={today} />
        </Field>
      </SendForm>
    </div>
  );
}

function SiteShares({ site }: { site: SiteRecord }) {
  const shares = useManaged('/sites/{site_id}/shares', { path: { site_id: site.site_id } });
  const tenants = useManaged('/workspaces/{workspace_id}/tenants', { path: { workspace_id: site.workspace_id } });
  const tenantName = (id: string) => (tenants.result?.ok ? tenants.result.data.tenants : []).find((t) => t.tenant_id === id)?.name ?? id;
  return (
    <div class="share-site" data-shares={site.site_id}>
      <h3>{site.name}</h3>
      <ListState listed={shares} label="share links">
        {(data) =>
          data.shares.length === 0 ? (
            <p class="empty">No share links yet.</p>
          ) : (
            <>
              <p class="note">Each link's address was shown once, when it was made; to share again, create a new link.</p>
              <ul class="record-list">
                {data.shares.map((s) => (
                  <li key={s.share_id} class={`record${s.state !== 'active' ? ' revoked' : ''}`} data-share={s.share_id}>
                    <div class="record-main">
                      <code>{s.share_id}</code>
                      <span class="muted">
                        {s.tenant_id ? `tenant ${tenantName(s.tenant_id)}` : 'the whole site'} · {s.password ? 'password' : 'no password'} ·{' '}
                        {s.expires_at ? `expires ${when(s.expires_at)}` : 'no expiry'}
                      </span>
                      {s.state !== 'active' ? <span class="badge off">{s.state === 'revoked' ? 'Revoked' : 'Expired'}</span> : null}
                    </div>
                    {s.state === 'active' ? (
                      <div class="card-actions">
                        <ActionButton
                          label="Revoke"
                          run={() =>
                            manage('POST', '/sites/{site_id}/shares/{share_id}/revoke', {
                              path: { site_id: site.site_id, share_id: s.share_id },
                            })
                          }
                          after={shares.reload}
                          confirm={`Revoke ${s.share_id}? The link is gone from now on.`}
                        />
                      </div>
                    ) : null}
                  </li>
                ))}
              </ul>
            </>
          )
        }
      </ListState>
    </div>
  );
}
