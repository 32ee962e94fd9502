// The pages of single-use links: an invitation (/app/invite/<secret>: choose a password, or join with
// the account you have), a password reset (/app/reset/<secret>) and a sign-in link (/app/sign-in/<secret>).
// Each posts its secret only when the person acts, so a mail scanner that opens the link spends nothing.
import { useState } from 'preact/hooks';
import { manage } from '../api/manage.js';
import type { Failure } from '../api/read.js';
import { AppFrame } from '../ui/page-shell.js';
import { Problem } from '../ui/panel-state.js';

function LinkForm({ title, intro, password, submitLabel, post }: { title: string; intro: string; password: boolean; submitLabel: string; post(form: FormData): Promise<Failure | null> }) {
  const [failure, setFailure] = useState<Failure | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const f = await post(new FormData(e.target as HTMLFormElement));
    if (f) setFailure(f);
    else location.assign('/app');
  };
  return (
    <AppFrame session={null} title={title}>
      <form class="card form" onSubmit={submit}>
        <h1>{title}</h1>
        <p>{intro}</p>
        {password ? (
          <label class="field stacked">
            <span class="field-label">Password (at least 10 characters)</span>
            <input name="password" type="password" autocomplete="new-password" minLength={10} required />
          </label>
        ) : null}
        {failure ? <Problem failure={failure} /> : null}
        <div class="form-actions">
          <button type="submit" class="button">
            {submitLabel}
          </button>
        </div>
      </form>
    </AppFrame>
  );
}

const errorOf = (r: { ok: boolean; error?: Failure }) => (r.ok ? null : r.error!);

export function InvitePage({ secret }: { secret: string }) {
  return (
    <AppFrame session={null} title="Join the workspace">
      <InviteForm secret={secret} />
    </AppFrame>
  );
}

function InviteForm({ secret }: { secret: string }) {
  const [failure, setFailure] = useState<Failure | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    const name = String(form.get('name') ?? '').trim();
    const r = await manage('POST', '/invitations/accept', { invitation: secret, password: form.get('password'), ...(name ? { name } : {}) });
    if (r.ok) location.assign('/app');
    else setFailure(r.error);
  };
  return (
    <form class="card form" onSubmit={submit}>
      <h1>Join the workspace</h1>
      <p>Choose a password for your account; if you already have one, enter its password.</p>
      <label class="field stacked">
        <span class="field-label">Your name (optional)</span>
        <input name="name" autocomplete="name" />
      </label>
      <label class="field stacked">
        <span class="field-label">Password (at least 10 characters)</span>
        <input name="password" type="password" autocomplete="new-password" minLength={10} required />
      </label>
      {failure ? <Problem failure={failure} /> : null}
      <div class="form-actions">
        <button type="submit" class="button">
          Join
        </button>
      </div>
    </form>
  );
}

export function ResetPage({ secret }: { secret: string }) {
  return (
    <LinkForm
      title="Choose a new password"
      intro="Every other session of your account ends when the password changes."
      password
      submitLabel="Save the password"
      post={async (form) => errorOf(await manage('POST', '/password-reset/accept', { reset: secret, password: form.get('password') }))}
    />
  );
}

export function SignInLinkPage({ secret }: { secret: string }) {
  return (
    <LinkForm
      title="Sign in"
      intro="This link signs you in once."
      password={false}
      submitLabel="Sign in"
      post={async () => errorOf(await manage('POST', '/sign-in-links/accept', { sign_in: secret }))}
    />
  );
}
