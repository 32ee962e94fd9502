// Settings > API tokens: the workspace's tokens for the read API (/v1), each under its name (what it is
// for, so people tell them apart; renamed in place), a form to make one (its secret is shown once, here,
// and never again), and revoke and rotate (a new secret, shown once; the old one stops working). A plan
// without API access says so instead.
import { useState } from 'preact/hooks';
import { manage } from '../api/manage.js';
import type { Scope, TokenRecord, TokenWithSecret, WorkspaceDetails } from '../api/manage-types.js';
import type { Failure } from '../api/read.js';
import { CopyField } from '../ui/copy-field.js';
import { Field, textOf } from '../ui/field.js';
import { Problem } from '../ui/panel-state.js';
import { ActionButton, day, ListState, PlanNote, Section, SendForm, useManaged, when } from './kit.js';
import { useSites } from './site-names.js';

function Secret({ token }: { token: TokenWithSecret }) {
  return (
    <>
      <p>
        The secret of {token.name ? <strong>{token.name}</strong> : null} <code>{token.token_id}</code>: copy it now, it is not shown again.
        Only its hash is kept.
      </p>
      <CopyField label="Secret" value={token.secret} block />
    </>
  );
}

export function TokensSettings({ ws }: { ws: WorkspaceDetails }) {
  const id = ws.workspace.workspace_id;
  const tokens = useManaged('/workspaces/{workspace_id}/tokens', { path: { workspace_id: id } });
  const { sites, name } = useSites(id);
  return (
    <Section
      id="tokens"
      title="API tokens"
      note={
        <span class="muted">
          For the read API: <a href="/docs">its documentation</a>
        </span>
      }
    >
      {!ws.plan.api_tokens ? <PlanNote>The read API and its tokens are part of the Starter, Pro and Enterprise plans.</PlanNote> : null}
      <ListState listed={tokens} label="tokens">
        {(data) =>
          data.tokens.length === 0 ? (
            ws.plan.api_tokens ? (
              <p class="empty">No tokens yet.</p>
            ) : null
          ) : (
            <ul class="record-list">
              {data.tokens.map((t) => (
                <TokenRow key={t.token_id} token={t} siteName={name} onChange={tokens.reload} />
              ))}
            </ul>
          )
        }
      </ListState>
      {ws.plan.api_tokens ? (
        <div class="panel form-panel">
          <SendForm
            title="Create a token"
            submitLabel="Create the token"
            send={(f) => {
              const only = f.getAll('sites').map(String);
              // the checkboxes offer only the document's scopes
              const scopes = f.getAll('scopes').map(String) as Scope[];
              const name = textOf(f, 'name').trim();
              return manage('POST', '/workspaces/{workspace_id}/tokens', {
                path: { workspace_id: id },
                body: { scopes, ...(only.length ? { sites: only } : {}), ...(name ? { name } : {}) },
              });
            }}
            shown={(t) => <Secret token={t} />}
            after={tokens.reload}
          >
            <Field label="Name (optional)">
              <input name="name" maxLength={200} placeholder="e.g. Data warehouse sync" autoComplete="off" />
            </Field>
            <fieldset>
              <legend>What it may read</legend>
              <label class="check">
                <input type="checkbox" name="scopes" value="metrics:read" checked /> Analytics (metrics:read)
              </label>
              <label class="check">
                <input type="checkbox" name="scopes" value="usage:read" /> Usage (usage:read)
              </label>
            </fieldset>
            {sites.length > 1 ? (
              <fieldset>
                <legend>Only these sites (none checked: every site)</legend>
                {sites.map((s) => (
                  <label key={s.site_id} class="check">
                    <input type="checkbox" name="sites" value={s.site_id} /> {s.name}
                  </label>
                ))}
              </fieldset>
            ) : null}
          </SendForm>
        </div>
      ) : null}
    </Section>
  );
}

/** The path parameters of one token's routes. */
const tokenIds = (t: TokenRecord) => ({ workspace_id: t.workspace_id, token_id: t.token_id });

function TokenRow({ token, siteName, onChange }: { token: TokenRecord; siteName(id: string): string; onChange(): void }) {
  const revoked = token.revoked_at !== null;
  const [renaming, setRenaming] = useState(false);
  return (
    <li class={`record${revoked ? ' revoked' : ''}`} data-token={token.token_id}>
      <div class="record-main">
        {token.name ? <strong class="token-name">{token.name}</strong> : <span class="token-name muted">Unnamed</span>}
        <code>{token.token_id}</code>
        <span class="muted">
          {token.scopes.join(', ')} · {token.site_ids ? token.site_ids.map(siteName).join(', ') : 'every site'} · created{' '}
          {day(token.created_at)}
          {token.rotated_at ? ` · rotated ${when(token.rotated_at)}` : ''}
        </span>
        {revoked ? <span class="badge off">Revoked {when(token.revoked_at)}</span> : null}
      </div>
      <div class="card-actions">
        {renaming ? (
          <RenameForm
            token={token}
            done={() => {
              setRenaming(false);
              onChange();
            }}
            cancel={() => setRenaming(false)}
          />
        ) : (
          <button
            type="button"
            class="quiet-button"
            onClick={() => setRenaming(true)}
            aria-label={`Rename ${token.name ?? token.token_id}`}
          >
            Rename
          </button>
        )}
        {revoked ? null : (
          <>
            <RotateButton token={token} onChange={onChange} />
            <ActionButton
              label="Revoke"
              run={() => manage('POST', '/workspaces/{workspace_id}/tokens/{token_id}/revoke', { path: tokenIds(token) })}
              after={onChange}
              confirm={`Revoke ${token.name ? `"${token.name}" (${token.token_id})` : token.token_id}? Every request with it is refused from now on.`}
            />
          </>
        )}
      </div>
    </li>
  );
}

/** The token's name, changed in place: an empty field leaves it unnamed. */
function RenameForm({ token, done, cancel }: { token: TokenRecord; done(): void; cancel(): void }) {
  const [value, setValue] = useState(token.name ?? '');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    const name = value.trim();
    const r = await manage('PATCH', '/workspaces/{workspace_id}/tokens/{token_id}', {
      path: tokenIds(token),
      body: { name: name === '' ? null : name },
    });
    setBusy(false);
    if (!r.ok) return setFailure(r.error);
    done();
  };
  return (
    <form class="action" onSubmit={save}>
      <span class="confirm">
        <input
          name="name"
          value={value}
          onInput={(e) => setValue((e.target as HTMLInputElement).value)}
          maxLength={200}
          placeholder="e.g. Data warehouse sync"
          aria-label={`New name of ${token.token_id} (empty: unnamed)`}
          autoComplete="off"
          // biome-ignore lint/a11y/noAutofocus: focus moves to the field the person just asked to edit
          autoFocus
        />
        <button type="submit" class="button" disabled={busy}>
          Save
        </button>
        <button type="button" class="quiet-button" onClick={cancel}>
          Cancel
        </button>
      </span>
      {failure ? <Problem failure={failure} title="Not renamed" alert /> : null}
    </form>
  );
}

/** A new secret for the token, shown once; the old secret stops working at once. */
function RotateButton({ token, onChange }: { token: TokenRecord; onChange(): void }) {
  const [rotated, setRotated] = useState<TokenWithSecret | null>(null);
  return (
    <>
      <ActionButton
        label="Rotate"
        run={() => manage('POST', '/workspaces/{workspace_id}/tokens/{token_id}/rotate', { path: tokenIds(token) })}
        after={(t) => {
          setRotated(t);
          onChange();
        }}
        confirm="Make a new secret? The current one stops working at once."
      />
      {rotated ? (
        <div class="done" role="status">
          <Secret token={rotated} />
        </div>
      ) : null}
    </>
  );
}
