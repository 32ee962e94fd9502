// The settings' create forms: a site, an API token (its secret shown once), an invitation (its link
// shown once). Each answer or refusal is shown as the management API gives it.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { manage } from '../api/manage.js';
import type { Failure } from '../api/read.js';
import { Field } from '../ui/field.js';
import { Problem } from '../ui/panel-state.js';

export function CreateForm({ title, submitLabel, send, children }: { title: string; submitLabel: string; send(form: FormData): Promise<{ failure: Failure } | { shown: string }>; children: ComponentChildren }) {
  const [outcome, setOutcome] = useState<{ failure: Failure } | { shown: string } | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setOutcome(await send(new FormData(e.target as HTMLFormElement)));
  };
  return (
    <form class="form create-form" onSubmit={submit}>
      <h2>{title}</h2>
      {children}
      {outcome && 'failure' in outcome ? <Problem failure={outcome.failure} /> : null}
      {outcome && 'shown' in outcome ? (
        <p class="secret" role="status">
          Shown this once, copy it now: <code>{outcome.shown}</code>
        </p>
      ) : null}
      <div class="form-actions">
        <button type="submit" class="button">
          {submitLabel}
        </button>
      </div>
    </form>
  );
}

const list = (v: FormDataEntryValue | null) => String(v ?? '').split(',').map((s) => s.trim()).filter(Boolean);

export function CreateSite({ workspaceId }: { workspaceId: string }) {
  return (
    <CreateForm
      title="Add a site"
      submitLabel="Add the site"
      send={async (f) => {
        const r = await manage<{ site_id: string }>('POST', `/workspaces/${encodeURIComponent(workspaceId)}/sites`, {
          name: f.get('name'),
          hostnames: list(f.get('hostnames')),
          collection_profile: f.get('collection_profile'),
        });
        if (!r.ok) return { failure: r.error };
        location.reload();
        return { shown: r.data.site_id };
      }}
    >
      <Field label="Name">
        <input name="name" required />
      </Field>
      <Field label="Hostnames, separated by commas">
        <input name="hostnames" required placeholder="example.com, www.example.com" />
      </Field>
      <Field label="Collection profile">
        <select name="collection_profile">
          <option value="strict">Strict</option>
          <option value="extended">Extended</option>
        </select>
      </Field>
    </CreateForm>
  );
}

export function CreateToken({ workspaceId }: { workspaceId: string }) {
  return (
    <CreateForm
      title="Create an API token"
      submitLabel="Create the token"
      send={async (f) => {
        const r = await manage<{ secret: string }>('POST', `/workspaces/${encodeURIComponent(workspaceId)}/tokens`, { scopes: f.getAll('scopes') });
        return r.ok ? { shown: r.data.secret } : { failure: r.error };
      }}
    >
      <fieldset>
        <legend>Scopes</legend>
        <label class="check">
          <input type="checkbox" name="scopes" value="metrics:read" checked /> Read analytics (metrics:read)
        </label>
        <label class="check">
          <input type="checkbox" name="scopes" value="usage:read" /> Read usage (usage:read)
        </label>
      </fieldset>
    </CreateForm>
  );
}

export function Invite({ workspaceId }: { workspaceId: string }) {
  return (
    <CreateForm
      title="Invite someone"
      submitLabel="Create the invitation"
      send={async (f) => {
        const r = await manage<{ invitation_url: string }>('POST', `/workspaces/${encodeURIComponent(workspaceId)}/invitations`, { email: f.get('email'), role: f.get('role') });
        return r.ok ? { shown: r.data.invitation_url } : { failure: r.error };
      }}
    >
      <Field label="Email">
        <input name="email" type="email" required />
      </Field>
      <Field label="Role">
        <select name="role">
          <option value="viewer">Viewer</option>
          <option value="admin">Admin</option>
          <option value="owner">Owner</option>
        </select>
      </Field>
    </CreateForm>
  );
}
