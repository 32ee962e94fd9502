// Settings > Goals: the goals of each site (a pageview matching a path pattern, or an action matching a
// name), a form to add one, and a way to remove one. A plan without the dashboard's goals surface says
// so instead of offering them.
import { manage } from '../api/manage.js';
import type { GoalIntent, GoalType, WorkspaceDetails } from '../api/manage-types.js';
import { Field, textOf } from '../ui/field.js';
import { ActionButton, ListState, PlanNote, Section, SendForm, SiteField, useManaged } from './kit.js';
import { useSites } from './site-names.js';

const INTENTS: readonly GoalIntent[] = ['lead', 'signup', 'purchase', 'download', 'outbound', 'content', 'custom'];
const TYPES: Record<GoalType, string> = { PAGEVIEW_MATCH: 'A page is viewed', EVENT_MATCH: 'An action happens' };

export function GoalsSettings({ ws }: { ws: WorkspaceDetails }) {
  const id = ws.workspace.workspace_id;
  const open = ws.dashboard.surfaces.includes('goals');
  const goals = useManaged('/workspaces/{workspace_id}/goals', { path: { workspace_id: id } });
  const { sites, name } = useSites(id);
  return (
    <Section id="goals" title="Goals">
      {!open ? <PlanNote>Goals and their conversions are part of the Pro and Enterprise plans.</PlanNote> : null}
      <ListState listed={goals} label="goals">
        {(data) =>
          data.goals.length === 0 ? (
            open ? (
              <p class="empty">No goals yet.</p>
            ) : null
          ) : (
            <ul class="record-list">
              {data.goals.map((g) => (
                <li key={g.goal_id} class="record" data-goal={g.goal_id}>
                  <div class="record-main">
                    <span>{g.name}</span>
                    <span class="muted">
                      {TYPES[g.type]}: <code>{g.pattern}</code> · {name(g.site_id)}
                    </span>
                  </div>
                  <ActionButton
                    quiet
                    label="Remove"
                    run={() => manage('DELETE', '/goals/{goal_id}', { path: { goal_id: g.goal_id } })}
                    after={goals.reload}
                    confirm={`Remove the goal ${g.name}?`}
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
            title="Add a goal"
            submitLabel="Add the goal"
            send={(f) =>
              manage('POST', '/workspaces/{workspace_id}/goals', {
                path: { workspace_id: id },
                // the selects offer only the document's types and intents
                body: {
                  site_id: textOf(f, 'site_id'),
                  name: textOf(f, 'name'),
                  type: textOf(f, 'type') as GoalType,
                  intent: textOf(f, 'intent') as GoalIntent,
                  pattern: textOf(f, 'pattern'),
                },
              })
            }
            after={goals.reload}
          >
            <SiteField sites={sites} />
            <Field label="Name">
              <input name="name" required maxLength={200} />
            </Field>
            <Field label="Counts when">
              <select name="type">
                {Object.entries(TYPES).map(([k, v]) => (
                  <option key={k} value={k}>
                    {v}
                  </option>
                ))}
              </select>
            </Field>
            <Field label="Pattern: a path such as /pricing or /blog/*, or an action's name">
              <input name="pattern" required maxLength={1000} autocomplete="off" />
            </Field>
            <Field label="Intent">
              <select name="intent">
                {INTENTS.map((i) => (
                  <option key={i} value={i}>
                    {i}
                  </option>
                ))}
              </select>
            </Field>
          </SendForm>
        </div>
      ) : null}
    </Section>
  );
}
