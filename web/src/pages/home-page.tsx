// /app: the sign-in form, or, once signed in, the person's sites by workspace.
import { useState } from 'preact/hooks';
import { manage, readSession } from '../api/manage.js';
import type { WorkspaceSummary } from '../api/manage-types.js';
import type { Failure } from '../api/read.js';
import { AppFrame } from '../ui/page-shell.js';
import { Field, textOf } from '../ui/field.js';
import { Problem, Skeleton } from '../ui/panel-state.js';
import { shown, useRead } from '../ui/use-read.js';
import { needsSecondStep, SecondStepForm } from './second-step-form.js';

/** Where to go after signing in: a page of the dashboard named by `next`, else the sites. */
function nextPage(): string {
  const next = new URLSearchParams(location.search).get('next');
  return next?.startsWith('/app/') && !next.startsWith('//') ? next : '/app';
}

export function HomePage() {
  const [signedIn, setSignedIn] = useState(0);
  const session = shown(useRead(`session-${signedIn}`, readSession));
  if (!session)
    return (
      <AppFrame session={null} title="">
        {<Skeleton rows={3} label="your session" />}
      </AppFrame>
    );
  if (!session.ok && session.error.status === 401) {
    return (
      <AppFrame session={null} title="Sign in">
        <SignInForm onSignedIn={() => (nextPage() === '/app' ? setSignedIn((n) => n + 1) : location.assign(nextPage()))} />
      </AppFrame>
    );
  }
  if (!session.ok)
    return (
      <AppFrame session={null} title="">
        {<Problem failure={session.error} />}
      </AppFrame>
    );
  return (
    <AppFrame session={session.data} title="Sites">
      <h1>Your sites</h1>
      {session.data.workspaces.length === 0 ? <p class="empty">You are not a member of any workspace yet.</p> : null}
      {session.data.workspaces.map((w) => (
        <WorkspaceSites key={w.workspace_id} workspace={w} />
      ))}
    </AppFrame>
  );
}

function WorkspaceSites({ workspace }: { workspace: WorkspaceSummary }) {
  const sites = shown(
    useRead(`sites-${workspace.workspace_id}`, () =>
      manage('GET', '/workspaces/{workspace_id}/sites', { path: { workspace_id: workspace.workspace_id } }),
    ),
  );
  const headingId = `ws-${workspace.workspace_id}`;
  return (
    <section class="panel" aria-labelledby={headingId}>
      <header class="panel-head">
        <h2 id={headingId}>
          {workspace.name} <span class="muted">{workspace.plan}</span>
        </h2>
        {workspace.role !== 'viewer' ? (
          <a href={`/app/settings/${encodeURIComponent(workspace.workspace_id)}/sites`} aria-label={`Settings of ${workspace.name}`}>
            Settings
          </a>
        ) : (
          // a viewer's one setting: which reports of the workspace's sites are mailed to them
          <a href={`/app/settings/${encodeURIComponent(workspace.workspace_id)}/reports`} aria-label={`Email reports of ${workspace.name}`}>
            Email reports
          </a>
        )}
      </header>
      {!sites ? (
        <Skeleton rows={2} label={`${workspace.name} sites`} />
      ) : !sites.ok ? (
        <Problem failure={sites.error} />
      ) : sites.data.sites.length === 0 ? (
        <p class="empty">
          No sites yet.
          {workspace.role !== 'viewer' ? (
            <>
              {' '}
              <a href={`/app/settings/${encodeURIComponent(workspace.workspace_id)}/sites`}>Add the first one</a>.
            </>
          ) : null}
        </p>
      ) : (
        <ul class="site-list">
          {sites.data.sites.map((s) => (
            <li key={s.site_id}>
              <a href={`/app/sites/${encodeURIComponent(s.site_id)}`}>{s.name}</a> <span class="muted">{s.hostnames.join(', ')}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The sign-in form; with `email`, for that account only (an invitation's page: "sign in as E"). */
export function SignInForm({
  onSignedIn,
  email,
  heading = 'Sign in',
  intro,
}: {
  onSignedIn(): void;
  email?: string;
  heading?: string;
  intro?: string;
}) {
  const [failure, setFailure] = useState<Failure | null>(null);
  const [sent, setSent] = useState<string | null>(null);
  // the challenge of the second step, once the password was right for an account with two-factor on
  const [challenge, setChallenge] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    const r = await manage('POST', '/session', { body: { email: textOf(form, 'email'), password: textOf(form, 'password') } });
    if (r.ok && needsSecondStep(r.data)) setChallenge(r.data.challenge);
    else if (r.ok) onSignedIn();
    else setFailure(r.error);
  };
  const forgot = async (e: Event) => {
    const email = ((e.target as HTMLElement).closest('form')?.querySelector('input[name=email]') as HTMLInputElement | null)?.value;
    if (!email)
      return setFailure({
        status: 0,
        code: 'EMAIL_NEEDED',
        message: 'The link to choose a new password goes to it: type it in the Email field above, then press “Forgot the password?” again.',
      });
    const r = await manage('POST', '/password-reset', { body: { email } });
    if (!r.ok) return setFailure(r.error);
    setFailure(null);
    setSent(
      r.data.mail_configured
        ? `If ${email} has an account, a link to choose a new password is on its way to it.`
        : 'No mail was sent: this server has no mail configured. Ask its operator for a link to choose a new password.',
    );
  };
  if (challenge) return <SecondStepForm challenge={challenge} onSignedIn={onSignedIn} />;
  return (
    <form class="card form" onSubmit={submit}>
      <h1>{heading}</h1>
      {intro ? <p>{intro}</p> : null}
      <Field label="Email">
        {email ? (
          <input name="email" type="email" autocomplete="username" value={email} readOnly required />
        ) : (
          <input name="email" type="email" autocomplete="username" required />
        )}
      </Field>
      <Field label="Password">
        <input name="password" type="password" autocomplete="current-password" required />
      </Field>
      {failure ? <Problem failure={failure} title="Not signed in" /> : null}
      {sent ? <p role="status">{sent}</p> : null}
      <div class="form-actions">
        <button type="submit" class="button">
          Sign in
        </button>
        <button type="button" class="quiet-button" onClick={forgot}>
          Forgot the password?
        </button>
      </div>
    </form>
  );
}
