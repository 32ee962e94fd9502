// The pages of single-use links: an invitation (/app/invite/<secret>: choose a password, or join with
// the account you have), a password reset (/app/reset/<secret>) and a sign-in link (/app/sign-in/<secret>).
// Each posts its secret only when the person acts, so a mail scanner that opens the link spends nothing.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { manage } from '../api/manage.js';
import type { Failure } from '../api/read.js';
import { AppFrame } from '../ui/page-shell.js';
import { Field } from '../ui/field.js';
import { Problem } from '../ui/panel-state.js';

function LinkForm({ title, intro, fields, submitLabel, post }: { title: string; intro: string; fields: ComponentChildren; submitLabel: string; post(form: FormData): Promise<Failure | null> }) {
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
        {fields}
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

const newPassword = (
  <Field label="Password (at least 10 characters)">
    <input name="password" type="password" autocomplete="new-password" minLength={10} required />
  </Field>
);

export function InvitePage({ secret }: { secret: string }) {
  return (
    <LinkForm
      title="Join the workspace"
      intro="Choose a password for your account; if you already have one, enter its password."
      fields={
        <>
          <Field label="Your name (optional)">
            <input name="name" autocomplete="name" />
          </Field>
          {newPassword}
        </>
      }
      submitLabel="Join"
      post={async (form) => {
        const name = String(form.get('name') ?? '').trim();
        return errorOf(await manage('POST', '/invitations/accept', { invitation: secret, password: form.get('password'), ...(name ? { name } : {}) }));
      }}
    />
  );
}

export function ResetPage({ secret }: { secret: string }) {
  return (
    <LinkForm
      title="Choose a new password"
      intro="Every other session of your account ends when the password changes."
      fields={newPassword}
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
      fields={null}
      submitLabel="Sign in"
      post={async () => errorOf(await manage('POST', '/sign-in-links/accept', { sign_in: secret }))}
    />
  );
}
