// /app/account: the signed-in person's own account. Their name (shown to the members of their
// workspaces), a new password (the current one first; every other device is signed out by it, this
// one stays signed in), two-factor sign-in (account-two-factor.tsx), and signing out on every device
// at once, this one included.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { manage, readSession, toSignIn } from '../api/manage.js';
import type { SessionState } from '../api/manage-types.js';
import type { Failure } from '../api/read.js';
import { ActionButton, Section } from '../settings/kit.js';
import { Field, textOf } from '../ui/field.js';
import { AppFrame } from '../ui/page-shell.js';
import { Problem, Skeleton } from '../ui/panel-state.js';
import { shown, useRead } from '../ui/use-read.js';
import { AccountForm, failed } from './account-form.js';
import { TwoFactorSection } from './account-two-factor.js';

export function AccountPage() {
  const first = shown(useRead('session', readSession));
  // what a change answered (a new name), in place of the first read
  const [latest, setLatest] = useState<SessionState | null>(null);
  const signedOut = first !== null && !first.ok && first.error.status === 401;
  useEffect(() => {
    if (signedOut) toSignIn();
  }, [signedOut]);
  useEffect(() => {
    document.title = 'Your account · footfall';
  }, []);
  const session = latest ?? (first?.ok ? first.data : null);
  let body: ComponentChildren;
  if (!first || signedOut) body = <Skeleton rows={4} label="your account" />;
  else if (!first.ok) body = <Problem failure={first.error} />;
  else if (session)
    body = (
      <>
        <NameSection session={session} onSaved={setLatest} />
        <PasswordSection email={session.user.email} />
        <TwoFactorSection email={session.user.email} />
        <SignOutEverywhereSection />
      </>
    );
  return (
    <AppFrame session={session} title="Your account">
      <div class="page-title-row">
        <h1>Your account</h1>
        {session ? <span class="muted">{session.user.email}</span> : null}
      </div>
      {body}
    </AppFrame>
  );
}

function NameSection({ session, onSaved }: { session: SessionState; onSaved(s: SessionState): void }) {
  return (
    <Section id="name" title="Your name" note={<span class="muted">Shown beside your email to the members of your workspaces.</span>}>
      <AccountForm
        label="Your name"
        refusedTitle="Name not saved"
        submitLabel="Save the name"
        send={async (form) => {
          const r = await manage('PATCH', '/session/name', { body: { name: textOf(new FormData(form), 'name') } });
          if (r.ok) onSaved(r.data);
          return failed(r, r.ok && r.data.user.name === null ? 'Your name is cleared.' : 'Your name is saved.');
        }}
      >
        <Field label="Name (optional, at most 100 characters)">
          <input name="name" autocomplete="name" maxLength={100} defaultValue={session.user.name ?? ''} />
        </Field>
      </AccountForm>
    </Section>
  );
}

/**
 * What a refused password change says: the server's words, but for a wrong current password words about
 * this form (the API's are those of signing in: "Wrong email or password").
 */
function passwordFailure(f: Failure): Failure {
  if (f.code === 'INVALID_CREDENTIALS')
    return { ...f, code: 'WRONG_CURRENT_PASSWORD', message: 'The current password is not right, so nothing changed. Type it again.' };
  return f;
}

function PasswordSection({ email }: { email: string }) {
  return (
    <Section id="password" title="Password" note={<span class="muted">Changing it signs you out on every other device.</span>}>
      <AccountForm
        label="Change your password"
        refusedTitle="Password not changed"
        submitLabel="Change the password"
        send={async (form) => {
          const data = new FormData(form);
          const next = textOf(data, 'new_password');
          if (next !== textOf(data, 'repeat_password'))
            return {
              failure: {
                status: 422,
                code: 'INVALID_PARAMS',
                message: 'The new password and its repetition differ: type the same password twice.',
                details: { field: 'repeat_password' },
              },
            };
          const r = await manage('POST', '/session/password', {
            body: { current_password: textOf(data, 'current_password'), new_password: next },
          });
          if (!r.ok) return { failure: passwordFailure(r.error) };
          form.reset();
          return { done: 'Your password is changed. Every other device was signed out; you stay signed in here.' };
        }}
      >
        {/* for password managers: whose password this is */}
        <input type="text" name="username" autocomplete="username" value={email} readOnly hidden />
        <Field label="Current password">
          <input name="current_password" type="password" autocomplete="current-password" maxLength={1024} />
        </Field>
        <Field label="New password (at least 10 characters)">
          <input name="new_password" type="password" autocomplete="new-password" minLength={10} maxLength={1024} required />
        </Field>
        <Field label="New password again">
          <input name="repeat_password" type="password" autocomplete="new-password" minLength={10} maxLength={1024} required />
        </Field>
      </AccountForm>
    </Section>
  );
}

function SignOutEverywhereSection() {
  return (
    <Section
      id="everywhere"
      title="Sign out everywhere"
      note={<span class="muted">Ends your sessions on every device, this one included: you sign in again afterwards.</span>}
    >
      <div class="create-form form-actions">
        <ActionButton
          label="Sign out everywhere"
          confirm="Sign out on every device, this one included?"
          run={() => manage('POST', '/session/sign-out-everywhere')}
          after={() => location.assign('/app')}
        />
      </div>
    </Section>
  );
}
