// The second step of signing in, for an account with two-factor sign-in on: the password (or a reset or
// sign-in link) was right and answered a challenge; this form sends it back with the code the
// authenticator app shows, or a recovery code, and the session is made then.
import { useState } from 'preact/hooks';
import { manage } from '../api/manage.js';
import type { Failure } from '../api/read.js';
import { Field, textOf } from '../ui/field.js';
import { Problem } from '../ui/panel-state.js';

/** What a sign-in answers when a second step is needed. */
export interface Challenge {
  two_factor_required: true;
  challenge: string;
}

export const needsSecondStep = (data: unknown): data is Challenge =>
  typeof data === 'object' && data !== null && (data as { two_factor_required?: unknown }).two_factor_required === true;

export function SecondStepForm({ challenge, onSignedIn }: { challenge: string; onSignedIn(): void }) {
  const [failure, setFailure] = useState<Failure | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    const code = textOf(new FormData(e.target as HTMLFormElement), 'code');
    const r = await manage('POST', '/session/second-step', { body: { challenge, code } });
    setBusy(false);
    if (r.ok) onSignedIn();
    else setFailure(r.error);
  };
  return (
    <form class="card form" aria-label="Two-factor sign-in" onSubmit={submit}>
      <h1>Two-factor sign-in</h1>
      <p>Type the 6-digit code your authenticator app shows for footfall now, or one of your recovery codes.</p>
      <Field label="Code from the app, or a recovery code">
        {/* biome-ignore lint/a11y/noAutofocus: the one field of this step, shown right after the password */}
        <input name="code" autocomplete="one-time-code" inputMode="text" spellcheck={false} maxLength={64} required autoFocus />
      </Field>
      {failure ? <Problem failure={failure} title="Not signed in" /> : null}
      <div class="form-actions">
        <button type="submit" class="button" disabled={busy}>
          Sign in
        </button>
      </div>
    </form>
  );
}
