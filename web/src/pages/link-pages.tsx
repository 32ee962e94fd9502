// The pages of single-use links: an invitation (/app/invite/<secret>: a new person chooses a password;
// a person with an account signs in as that account, then joins), a password reset (/app/reset/<secret>) and a sign-in link (/app/sign-in/<secret>).
// Each posts its secret only when the person acts, so a mail scanner that opens the link spends nothing.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { manage, readSession } from '../api/manage.js';
import type { Role, SessionState } from '../api/manage-types.js';
import type { Failure } from '../api/read.js';
import { AppFrame } from '../ui/page-shell.js';
import { Field, textOf } from '../ui/field.js';
import { Problem, Skeleton } from '../ui/panel-state.js';
import { shown, useRead } from '../ui/use-read.js';
import { SignInForm } from './home-page.js';
import { type Challenge, needsSecondStep, SecondStepForm } from './second-step-form.js';

function LinkForm({
  title,
  intro,
  fields,
  submitLabel,
  post,
}: {
  title: string;
  intro: ComponentChildren;
  fields: ComponentChildren;
  submitLabel: string;
  /** a refusal, the second step of an account with two-factor on, or null: signed in */
  post(form: FormData): Promise<Failure | Challenge | null>;
}) {
  const [failure, setFailure] = useState<Failure | null>(null);
  const [challenge, setChallenge] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const f = await post(new FormData(e.target as HTMLFormElement));
    if (needsSecondStep(f)) setChallenge(f.challenge);
    else if (f) setFailure(f);
    else location.assign('/app');
  };
  if (challenge)
    return (
      <AppFrame session={null} title="Two-factor sign-in">
        <SecondStepForm challenge={challenge} onSignedIn={() => location.assign('/app')} />
      </AppFrame>
    );
  return (
    <AppFrame session={null} title={title}>
      <form class="card form" onSubmit={submit}>
        <h1>{title}</h1>
        {typeof intro === 'string' ? <p>{intro}</p> : intro}
        {fields}
        {failure ? <Problem failure={failure} title="Not done" /> : null}
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
/** A sign-in's refusal, or its second step when the account has two-factor on, or null: signed in. */
const signedInOr = (r: { ok: true; data: unknown } | { ok: false; error: Failure }) =>
  r.ok ? (needsSecondStep(r.data) ? r.data : null) : r.error;

const newPassword = (
  <Field label="Password (at least 10 characters)">
    <input name="password" type="password" autocomplete="new-password" minLength={10} required />
  </Field>
);

const ROLE_WORDS: Record<Role, string> = {
  owner: 'an owner (everything, members and owners included)',
  admin: 'an admin (sites, tenants, goals, tokens, invitations)',
  viewer: 'a viewer (dashboards and exports)',
};

/**
 * An invitation: who invites whom to what, then the one way in that fits. A new email chooses a
 * password; an email with an account joins from a session of that account (signed in here first),
 * never by a password typed on this page.
 */
export function InvitePage({ secret }: { secret: string }) {
  const [signedIn, setSignedIn] = useState(0);
  const preview = shown(useRead(`invitation-${secret}`, () => manage('POST', '/invitations/preview', { body: { invitation: secret } })));
  const session = shown(useRead(`session-${signedIn}`, readSession));
  if (!preview || !session)
    return (
      <AppFrame session={null} title="Invitation">
        {<Skeleton rows={3} label="the invitation" />}
      </AppFrame>
    );
  const me = session.ok ? session.data : null;
  if (!preview.ok)
    return (
      <AppFrame session={me} title="Invitation">
        <div class="card form">
          <h1>This invitation cannot be used</h1>
          <Problem failure={preview.error} />
        </div>
      </AppFrame>
    );
  const inv = preview.data;
  const from = inv.invited_by ? `${inv.invited_by.name ?? inv.invited_by.email} invites` : 'You are invited:';
  const about = (
    <p>
      {from} <strong>{inv.email}</strong> to join <strong>{inv.workspace_name}</strong> as {ROLE_WORDS[inv.role]}.
    </p>
  );
  if (me && me.user.email === inv.email) return <JoinAsMe secret={secret} about={about} workspace={inv.workspace_name} session={me} />;
  if (me)
    return (
      <AppFrame session={me} title="Invitation">
        <div class="card form">
          <h1>Join {inv.workspace_name}</h1>
          {about}
          <p>
            You are signed in as {me.user.email}. This invitation is for {inv.email}: sign out, then sign in as {inv.email} to join.
          </p>
          <div class="form-actions">
            <button type="button" class="button" onClick={() => void manage('DELETE', '/session').then(() => setSignedIn((n) => n + 1))}>
              Sign out
            </button>
          </div>
        </div>
      </AppFrame>
    );
  if (inv.account_exists)
    return (
      <AppFrame session={null} title={`Join ${inv.workspace_name}`}>
        <SignInForm
          heading={`Join ${inv.workspace_name}`}
          intro={`${from} ${inv.email} to join ${inv.workspace_name} as ${ROLE_WORDS[inv.role]}. ${inv.email} has a footfall account: sign in as ${inv.email} to join.`}
          email={inv.email}
          onSignedIn={() => setSignedIn((n) => n + 1)}
        />
      </AppFrame>
    );
  return (
    <LinkForm
      title={`Join ${inv.workspace_name}`}
      intro={about}
      fields={
        <>
          <Field label="Your name (optional)">
            <input name="name" autocomplete="name" />
          </Field>
          {newPassword}
        </>
      }
      submitLabel="Create the account and join"
      post={async (form) => {
        const name = String(form.get('name') ?? '').trim();
        return errorOf(
          await manage('POST', '/invitations/accept', {
            body: { invitation: secret, password: textOf(form, 'password'), ...(name ? { name } : {}) },
          }),
        );
      }}
    />
  );
}

function JoinAsMe({
  secret,
  about,
  workspace,
  session,
}: {
  secret: string;
  about: ComponentChildren;
  workspace: string;
  session: SessionState;
}) {
  const [failure, setFailure] = useState<Failure | null>(null);
  const join = async () => {
    const r = await manage('POST', '/invitations/join', { body: { invitation: secret } });
    if (r.ok) location.assign('/app');
    else setFailure(r.error);
  };
  return (
    <AppFrame session={session} title="Invitation">
      <div class="card form">
        <h1>Join {workspace}</h1>
        {about}
        {failure ? <Problem failure={failure} title="Not joined" /> : null}
        <div class="form-actions">
          <button type="button" class="button" onClick={() => void join()}>
            Join {workspace}
          </button>
        </div>
      </div>
    </AppFrame>
  );
}

export function ResetPage({ secret }: { secret: string }) {
  return (
    <LinkForm
      title="Choose a new password"
      intro="Every other session of your account ends when the password changes."
      fields={newPassword}
      submitLabel="Save the password"
      post={async (form) =>
        signedInOr(await manage('POST', '/password-reset/accept', { body: { reset: secret, password: textOf(form, 'password') } }))
      }
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
      post={async () => signedInOr(await manage('POST', '/sign-in-links/accept', { body: { sign_in: secret } }))}
    />
  );
}
