// Settings > Members: the seats in use (members and open invitations) of the plan's seats, the members
// (an owner changes roles and removes people; a workspace keeps one owner), the open invitations (each
// can be revoked), and a form to invite someone: the single-use link is shown once, to send them.
// The only owner is offered no change of role and no removal: the API refuses them (a workspace keeps
// an owner), and if it still refuses one (another owner left meanwhile) the refusal is said in words.
import { manage } from '../api/manage.js';
import { useState } from 'preact/hooks';
import type { Member, Role, WorkspaceDetails } from '../api/manage-types.js';
import type { Result } from '../api/read.js';
import { CopyField } from '../ui/copy-field.js';
import { Field, textOf } from '../ui/field.js';
import { Problem } from '../ui/panel-state.js';
import { ActionButton, day, ListState, Section, SendForm, useManaged, usedOf, when } from './kit.js';

const ROLE_WORDS: Record<Role, string> = {
  owner: 'Owner: everything, members included',
  admin: 'Admin: sites, tenants, goals, tokens, invitations',
  viewer: 'Viewer: dashboards and their numbers',
};

export function MembersSettings({ ws }: { ws: WorkspaceDetails }) {
  const id = ws.workspace.workspace_id;
  const owner = ws.workspace.role === 'owner';
  const members = useManaged('/workspaces/{workspace_id}/members', { path: { workspace_id: id } });
  const invitations = useManaged('/workspaces/{workspace_id}/invitations', { path: { workspace_id: id } });
  const reload = () => {
    members.reload();
    invitations.reload();
  };
  // the member whose role change or removal the API refused as it would leave no owner, and what it was
  const [kept, setKept] = useState<{ email: string; what: string } | null>(null);
  /**
   * The API's CONFLICT on a role change or a removal is the workspace keeping its owner (another owner
   * left since the list was read): the list is read again, and the row says why in its own words.
   */
  const keepingOwner = async <T,>(m: Member, what: string, r: Promise<Result<T>>): Promise<Result<T | null>> => {
    const answer = await r;
    if (answer.ok || answer.error.code !== 'CONFLICT') {
      if (answer.ok) setKept(null);
      return answer;
    }
    setKept({ email: m.email, what });
    return { ok: true, data: null };
  };
  const seats = members.result?.ok ? members.result.data.seats : null;
  const owners = members.result?.ok ? members.result.data.members.filter((m) => m.role === 'owner').length : 0;
  return (
    <Section
      id="members"
      title="Members"
      note={
        seats ? (
          <span class="muted" data-seats={`${seats.used}/${seats.limit ?? ''}`}>
            Seats: {usedOf(seats.used, seats.limit)}, members and open invitations
          </span>
        ) : null
      }
    >
      <ListState listed={members} label="members">
        {(data) => (
          <ul class="record-list">
            {data.members.map((m) => (
              <li key={m.user_id} class="record" data-member={m.email}>
                <div class="record-main">
                  <span>
                    {m.name ? `${m.name} · ` : ''}
                    {m.email}
                  </span>
                  <span class="muted">
                    {m.role} · joined {day(m.joined_at)}
                  </span>
                </div>
                {owner && m.role === 'owner' && owners === 1 ? (
                  <p class="note" data-only-owner>
                    The only owner: to change this role or remove them, make another member owner first.
                  </p>
                ) : owner ? (
                  <div class="card-actions">
                    {(['owner', 'admin', 'viewer'] as const)
                      .filter((r) => r !== m.role)
                      .map((r) => (
                        <ActionButton
                          key={r}
                          quiet
                          label={`Make ${r}`}
                          run={() =>
                            keepingOwner(
                              m,
                              `made ${r === 'viewer' ? 'a viewer' : `an ${r}`}`,
                              manage('PATCH', '/workspaces/{workspace_id}/members/{user_id}', {
                                path: { workspace_id: id, user_id: m.user_id },
                                body: { role: r },
                              }),
                            )
                          }
                          after={reload}
                        />
                      ))}
                    <ActionButton
                      quiet
                      label="Remove"
                      run={() =>
                        keepingOwner(
                          m,
                          'removed',
                          manage('DELETE', '/workspaces/{workspace_id}/members/{user_id}', {
                            path: { workspace_id: id, user_id: m.user_id },
                          }),
                        )
                      }
                      after={reload}
                      confirm={`Remove ${m.email} from the workspace?`}
                    />
                  </div>
                ) : null}
                {kept?.email === m.email ? (
                  <div class="record-problem">
                    <Problem
                      alert
                      failure={{
                        status: 409,
                        code: 'LAST_OWNER',
                        message: `${m.email} was not ${kept.what}: they are now the only owner, and a workspace keeps one. Make another member owner first.`,
                      }}
                    />
                  </div>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </ListState>
      <h3>Open invitations</h3>
      <ListState listed={invitations} label="invitations">
        {(data) =>
          data.invitations.length === 0 ? (
            <p class="empty">No open invitations.</p>
          ) : (
            <ul class="record-list">
              {data.invitations.map((i) => (
                <li key={i.invitation_id} class="record" data-invitation={i.email}>
                  <div class="record-main">
                    <span>{i.email}</span>
                    <span class="muted">
                      {i.role} · expires {when(i.expires_at)}
                    </span>
                  </div>
                  <ActionButton
                    quiet
                    label="Revoke"
                    run={() =>
                      manage('DELETE', '/workspaces/{workspace_id}/invitations/{invitation_id}', {
                        path: { workspace_id: id, invitation_id: i.invitation_id },
                      })
                    }
                    after={reload}
                  />
                </li>
              ))}
            </ul>
          )
        }
      </ListState>
      <div class="panel form-panel">
        <SendForm
          title="Invite someone"
          submitLabel="Create the invitation"
          send={(f) =>
            manage('POST', '/workspaces/{workspace_id}/invitations', {
              path: { workspace_id: id },
              body: { email: textOf(f, 'email'), role: textOf(f, 'role') as Role },
            })
          }
          shown={(inv) =>
            inv.mailed ? (
              <p role="status">The invitation was mailed to them: its link works once, until {when(inv.expires_at)}.</p>
            ) : inv.invitation_url !== undefined ? (
              <>
                <p>
                  No mail was sent: this server has no mail configured. Send them this link yourself: it works once, until{' '}
                  {when(inv.expires_at)}. Copy it now: it is not shown again.
                </p>
                <CopyField label="Invitation link" value={inv.invitation_url} block />
              </>
            ) : (
              <p role="alert">{inv.mail_error?.message ?? 'The invitation was made, but its mail was not sent: invite them again.'}</p>
            )
          }
          after={reload}
        >
          <Field label="Email">
            <input name="email" type="email" required autocomplete="off" />
          </Field>
          <Field label="Role">
            <select name="role">
              {(owner ? (['viewer', 'admin', 'owner'] as const) : (['viewer', 'admin'] as const)).map((r) => (
                <option key={r} value={r}>
                  {ROLE_WORDS[r]}
                </option>
              ))}
            </select>
          </Field>
        </SendForm>
      </div>
    </Section>
  );
}
