// Settings > Funnels: the saved funnels of each site (2 to 8 ordered steps, each a page path pattern or
// an event name), a form to save one, an edit mode that renames it or replaces its steps in the same
// form, and a way to delete one. The API checks the steps and its refusal is shown inside the form. A plan
// without the dashboard's goals surface (funnels are part of it) says so instead of offering them.
import { useState } from 'preact/hooks';
import { manage } from '../api/manage.js';
import type { FunnelRecord, FunnelStep, SiteRecord, WorkspaceDetails } from '../api/manage-types.js';
import type { Failure, Result } from '../api/read.js';
import { Field } from '../ui/field.js';
import { Problem } from '../ui/panel-state.js';
import { ActionButton, ListState, PlanNote, Section, useManaged } from './kit.js';
import { useSites } from './site-names.js';

const MAX_STEPS = 8;
type Kind = 'page' | 'event';
interface StepRow {
  kind: Kind;
  value: string;
}

/** "page /pricing* → event Signup" */
export function stepsText(steps: readonly FunnelStep[]): string {
  return steps.map((s) => ('page' in s ? `page ${s.page}` : `event ${s.event}`)).join(' → ');
}

const rowsOf = (steps: readonly FunnelStep[]): StepRow[] =>
  steps.map((s) => ('page' in s ? { kind: 'page', value: s.page } : { kind: 'event', value: s.event }));
const stepsOf = (rows: readonly StepRow[]): FunnelStep[] =>
  rows.map((r) => (r.kind === 'page' ? { page: r.value.trim() } : { event: r.value.trim() }));
const FRESH: StepRow[] = [
  { kind: 'page', value: '' },
  { kind: 'event', value: '' },
];

export function FunnelsSettings({ ws }: { ws: WorkspaceDetails }) {
  const id = ws.workspace.workspace_id;
  const open = ws.dashboard.surfaces.includes('goals');
  const funnels = useManaged('/workspaces/{workspace_id}/funnels', { path: { workspace_id: id } });
  const { sites } = useSites(id);
  const [editing, setEditing] = useState<FunnelRecord | null>(null);
  return (
    <Section id="funnels" title="Funnels">
      {!open ? <PlanNote>Funnels are part of the Pro and Enterprise plans.</PlanNote> : null}
      <ListState listed={funnels} label="funnels">
        {(data) =>
          data.funnels.length === 0 && !open ? null : (
            <div class="funnel-sites">
              {sites.map((site) => {
                const mine = data.funnels.filter((f) => f.site_id === site.site_id);
                return (
                  <div key={site.site_id} class="funnel-site" data-site={site.site_id}>
                    <h3>{site.name}</h3>
                    {mine.length === 0 ? (
                      <p class="empty">No funnels yet.</p>
                    ) : (
                      <ul class="record-list">
                        {mine.map((f) => (
                          <li key={f.funnel_id} class="record" data-funnel={f.funnel_id}>
                            <div class="record-main">
                              <span class="funnel-name">{f.name}</span>
                              <span class="muted funnel-steps">{stepsText(f.steps)}</span>
                            </div>
                            <div class="card-actions">
                              <button type="button" class="quiet-button" onClick={() => setEditing(f)} aria-label={`Edit ${f.name}`}>
                                Edit
                              </button>
                              <ActionButton
                                quiet
                                label="Delete"
                                run={() => manage('DELETE', '/funnels/{funnel_id}', { path: { funnel_id: f.funnel_id } })}
                                after={() => {
                                  if (editing?.funnel_id === f.funnel_id) setEditing(null);
                                  funnels.reload();
                                }}
                                confirm={`Delete the funnel ${f.name}?`}
                              />
                            </div>
                          </li>
                        ))}
                      </ul>
                    )}
                  </div>
                );
              })}
            </div>
          )
        }
      </ListState>
      {open ? (
        <div class="panel form-panel">
          {editing ? (
            <FunnelForm
              key={editing.funnel_id}
              title={`Edit the funnel ${editing.name}`}
              submitLabel="Save the changes"
              start={{ name: editing.name, rows: rowsOf(editing.steps) }}
              send={(name, steps) =>
                manage('PATCH', '/funnels/{funnel_id}', { path: { funnel_id: editing.funnel_id }, body: { name, steps } })
              }
              after={() => {
                setEditing(null);
                funnels.reload();
              }}
              cancel={() => setEditing(null)}
            />
          ) : (
            <FunnelForm
              key="new"
              title="Add a funnel"
              submitLabel="Save the funnel"
              start={{ name: '', rows: FRESH }}
              sites={sites}
              send={(name, steps, siteId) =>
                manage('POST', '/workspaces/{workspace_id}/funnels', { path: { workspace_id: id }, body: { site_id: siteId, name, steps } })
              }
              after={funnels.reload}
            />
          )}
        </div>
      ) : null}
    </Section>
  );
}

/** The form of a funnel: its site (a new one only), its name and its steps, one row each. */
function FunnelForm<T>({
  title,
  submitLabel,
  start,
  sites,
  send,
  after,
  cancel,
}: {
  title: string;
  submitLabel: string;
  start: { name: string; rows: StepRow[] };
  /** the sites a new funnel may belong to; absent when editing (a funnel keeps its site) */
  sites?: SiteRecord[];
  send(name: string, steps: FunnelStep[], siteId: string): Promise<Result<T>>;
  after(): void;
  cancel?: () => void;
}) {
  const [name, setName] = useState(start.name);
  const [siteId, setSiteId] = useState('');
  const [rows, setRows] = useState<StepRow[]>(start.rows);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [busy, setBusy] = useState(false);
  const site = siteId || sites?.[0]?.site_id || '';
  const change = (i: number, row: Partial<StepRow>) => setRows(rows.map((r, k) => (k === i ? { ...r, ...row } : r)));
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    const r = await send(name.trim(), stepsOf(rows), site);
    setBusy(false);
    if (!r.ok) return setFailure(r.error);
    setFailure(null);
    setName('');
    setRows(FRESH);
    after();
  };
  return (
    <form class="form create-form funnel-form" onSubmit={submit}>
      <h3>{title}</h3>
      {sites ? (
        <Field label="Site">
          <select name="site_id" required value={site} onChange={(e) => setSiteId(e.currentTarget.value)}>
            {sites.map((s) => (
              <option key={s.site_id} value={s.site_id}>
                {s.name}
              </option>
            ))}
          </select>
        </Field>
      ) : null}
      <Field label="Name">
        <input name="name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <fieldset class="funnel-steps-field">
        <legend>Steps, in order (2 to {MAX_STEPS})</legend>
        <p class="note">A page is a path such as /pricing or /blog/* (* is any run of characters); an event is an action's name.</p>
        <ol class="step-rows">
          {rows.map((r, i) => (
            <li key={i} class="step-row" data-step={i + 1}>
              <span class="step-number" aria-hidden="true">
                {i + 1}.
              </span>
              <select
                aria-label={`Step ${i + 1}: kind`}
                value={r.kind}
                onChange={(e) => change(i, { kind: e.currentTarget.value as Kind })}
              >
                <option value="page">Page</option>
                <option value="event">Event</option>
              </select>
              <input
                aria-label={`Step ${i + 1}: ${r.kind === 'page' ? 'page path' : 'event name'}`}
                placeholder={r.kind === 'page' ? '/pricing*' : 'Signup'}
                required
                maxLength={1000}
                autocomplete="off"
                value={r.value}
                onInput={(e) => change(i, { value: e.currentTarget.value })}
              />
              <button
                type="button"
                class="quiet-button"
                aria-label={`Remove step ${i + 1}`}
                disabled={rows.length === 1}
                onClick={() => setRows(rows.filter((_, k) => k !== i))}
              >
                Remove
              </button>
            </li>
          ))}
        </ol>
        <button
          type="button"
          class="button secondary"
          disabled={rows.length >= MAX_STEPS}
          onClick={() => setRows([...rows, { kind: 'page', value: '' }])}
        >
          Add a step
        </button>
      </fieldset>
      {failure ? <Problem failure={failure} title="Not saved" alert /> : null}
      <div class="form-actions">
        <button type="submit" class="button" disabled={busy}>
          {submitLabel}
        </button>
        {cancel ? (
          <button type="button" class="quiet-button" onClick={cancel}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}
