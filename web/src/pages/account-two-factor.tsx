// /app/account, "Two-factor sign-in": turning it on (the server makes the secret; the page shows it as a
// QR code, drawn from the path the server sends, and as text to type; the person confirms a code and
// their password), the ten recovery codes shown once, new recovery codes, and turning it off.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { manage } from '../api/manage.js';
import type { Failure } from '../api/read.js';
import { ActionButton, Section } from '../settings/kit.js';
import { Field, textOf } from '../ui/field.js';
import { Problem, Skeleton } from '../ui/panel-state.js';
import { shown, useRead } from '../ui/use-read.js';
import { AccountForm } from './account-form.js';

interface Setup {
  secret: string;
  otpauth_uri: string;
  qr: { size: number; path: string };
}

/** What a refused change says: for a wrong password, words about this form (the API's are those of signing in). */
function refusal(f: Failure): Failure {
  if (f.code === 'INVALID_CREDENTIALS') return { ...f, message: 'The password is not right, so nothing changed. Type it again.' };
  return f;
}

const proofOf = (form: HTMLFormElement) => {
  const data = new FormData(form);
  return { password: textOf(data, 'password'), code: textOf(data, 'code') };
};

function ProofFields({ email, codeLabel }: { email: string; codeLabel: string }) {
  return (
    <>
      {/* for password managers: whose password this is */}
      <input type="text" name="username" autocomplete="username" value={email} readOnly hidden />
      <Field label="Your password">
        <input name="password" type="password" autocomplete="current-password" maxLength={1024} required />
      </Field>
      <Field label={codeLabel}>
        <input name="code" autocomplete="one-time-code" spellcheck={false} maxLength={64} required />
      </Field>
    </>
  );
}

export function TwoFactorSection({ email }: { email: string }) {
  const [version, setVersion] = useState(0);
  const status = shown(useRead(`two-factor-${version}`, () => manage('GET', '/session/two-factor')));
  const [setup, setSetup] = useState<Setup | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const reread = () => setVersion((n) => n + 1);
  let body: ComponentChildren;
  if (codes) body = <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />;
  else if (!status) body = <Skeleton rows={2} label="two-factor sign-in" />;
  else if (!status.ok) body = <Problem failure={status.error} />;
  else if (status.data.enabled)
    body = (
      <>
        <p>
          <strong>Two-factor sign-in is on.</strong> {status.data.recovery_codes_left} of your recovery codes are unused.
        </p>
        <AccountForm
          label="New recovery codes"
          refusedTitle="No new codes"
          submitLabel="Make new recovery codes"
          send={async (form) => {
            const r = await manage('POST', '/session/two-factor/recovery-codes', { body: proofOf(form) });
            if (!r.ok) return { failure: refusal(r.error) };
            setCodes(r.data.recovery_codes);
            reread();
            return { done: 'New recovery codes are made; the earlier ones no longer work.' };
          }}
        >
          <ProofFields email={email} codeLabel="Code from the app" />
        </AccountForm>
        <AccountForm
          label="Turn off two-factor sign-in"
          refusedTitle="Still on"
          submitLabel="Turn off two-factor sign-in"
          send={async (form) => {
            const r = await manage('POST', '/session/two-factor/disable', { body: proofOf(form) });
            if (!r.ok) return { failure: refusal(r.error) };
            reread();
            return { done: 'Two-factor sign-in is off.' };
          }}
        >
          <ProofFields email={email} codeLabel="Code from the app, or a recovery code" />
        </AccountForm>
      </>
    );
  else if (setup)
    body = (
      <SetupSteps
        email={email}
        setup={setup}
        onEnabled={(c) => {
          setSetup(null);
          setCodes(c);
          reread();
        }}
      />
    );
  else
    body = (
      <div class="create-form form-actions">
        <ActionButton label="Turn on two-factor sign-in" run={() => manage('POST', '/session/two-factor/setup')} after={setSetup} />
      </div>
    );
  return (
    <Section
      id="two-factor"
      title="Two-factor sign-in"
      note={<span class="muted">With it on, signing in asks for a code from an authenticator app after your password.</span>}
    >
      {body}
    </Section>
  );
}

function SetupSteps({ email, setup, onEnabled }: { email: string; setup: Setup; onEnabled(codes: string[]): void }) {
  return (
    <div class="two-factor-setup">
      <p>1. In your authenticator app, add an account by scanning this QR code, or type the key below it (a time-based key).</p>
      <svg
        class="qr-code"
        viewBox={`0 0 ${setup.qr.size} ${setup.qr.size}`}
        role="img"
        aria-label="QR code of the key, for an authenticator app"
        shape-rendering="crispEdges"
      >
        <rect width={setup.qr.size} height={setup.qr.size} fill="#fff" />
        <path d={setup.qr.path} fill="#000" />
      </svg>
      <p>
        Key: <code class="totp-secret">{setup.secret.match(/.{1,4}/g)!.join(' ')}</code>
      </p>
      <p>2. Type the 6-digit code the app shows now, and your password, to turn it on.</p>
      <AccountForm
        label="Turn on two-factor sign-in"
        refusedTitle="Not turned on"
        submitLabel="Turn on"
        send={async (form) => {
          const r = await manage('POST', '/session/two-factor/enable', { body: proofOf(form) });
          if (!r.ok) return { failure: refusal(r.error) };
          onEnabled(r.data.recovery_codes);
          return { done: 'Two-factor sign-in is on.' };
        }}
      >
        <ProofFields email={email} codeLabel="6-digit code from the app" />
      </AccountForm>
    </div>
  );
}

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone(): void }) {
  return (
    <div class="recovery-codes" role="status">
      <p>
        <strong>Your recovery codes are shown only this once.</strong> Keep them somewhere safe (a password manager, or on paper): each one
        signs you in once if you lose your authenticator app.
      </p>
      <ol class="code-list">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ol>
      <div class="form-actions">
        <button type="button" class="button" onClick={onDone}>
          I have kept them
        </button>
      </div>
    </div>
  );
}
