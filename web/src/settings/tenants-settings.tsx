// Settings > Tenants: the tenants of each site (the customers of a multi-tenant product, tagged on its
// pages with props.tenant_id), a form to add one, and a switch between active and inactive. A plan
// without the dashboard's tenants surface says so instead of offering them.
import { manage } from '../api/manage.js';
import type { WorkspaceDetails } from '../api/manage-types.js';
import { Field, textOf } from '../ui/field.js';
import { ActionButton, ListState, PlanNote, Section, SendForm, SiteField, useManaged } from './kit.js';
import { useSites } from './site-names.js';

export function TenantsSettings({ ws }: { ws: WorkspaceDetails }) {
  const id = ws.workspace.workspace_id;
  const open = ws.dashboard.surfaces.includes('tenants');
  const tenants = useManaged('/workspaces/{workspace_id}/tenants', { path: { workspace_id: id } });
  const { sites, name } = useSites(id);
  return (
    <Section id="tenants" title="Tenants">
      {!open ? (
        <PlanNote>Tenants (one dashboard per customer of a multi-tenant product) are part of the Pro and Enterprise plans.</PlanNote>
      ) : null}
      <ListState listed={tenants} label="tenants">
        {(data) =>
          data.tenants.length === 0 ? (
            open ? (
              <p class="empty">No tenants yet.</p>
            ) : null
          ) : (
            <ul class="record-list">
              {data.tenants.map((t) => (
                <li key={t.tenant_id} class="record" data-tenant={t.tenant_id}>
                  <div class="record-main">
                    <span>
                      {t.name} <code>{t.slug}</code>
                    </span>
                    <span class="muted">
                      {name(t.site_id)} · {t.status === 'ACTIVE' ? 'active' : 'inactive'}
                    </span>
                  </div>
                  <ActionButton
                    quiet
                    label={t.status === 'ACTIVE' ? 'Deactivate' : 'Activate'}
                    run={() =>
                      manage('PATCH', '/tenants/{tenant_id}', {
                        path: { tenant_id: t.tenant_id },
                        body: { status: t.status === 'ACTIVE' ? 'INACTIVE' : 'ACTIVE' },
                      })
                    }
                    after={tenants.reload}
                  />
                </li>
              ))}
            </ul>
          )
        }
      </ListState>
      {open ? (
        <div class="panel form-panel">
          <SendForm
            title="Add a tenant"
            submitLabel="Add the tenant"
            send={(f) =>
              manage('POST', '/workspaces/{workspace_id}/tenants', {
                path: { workspace_id: id },
                body: { site_id: textOf(f, 'site_id'), slug: textOf(f, 'slug'), name: textOf(f, 'name') },
              })
            }
            after={tenants.reload}
          >
            <SiteField sites={sites} />
            <Field label="Name">
              <input name="name" required maxLength={200} />
            </Field>
            <Field label="Slug: lower-case letters, digits, “-” and “_”">
              <input name="slug" required maxLength={63} pattern="[a-z0-9_\-]+" autocomplete="off" />
            </Field>
          </SendForm>
        </div>
      ) : null}
    </Section>
  );
}
