// A form of the account page (/app/account): its fields, the refusal in words or what was done, and its button.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { Failure, Result } from '../api/read.js';
import { Problem } from '../ui/panel-state.js';

type Outcome = { failure: Failure } | { done: string } | null;

/** A form of this page: its fields, the refusal in words or what was done, and its button. */
export function AccountForm({
  label,
  refusedTitle,
  submitLabel,
  send,
  children,
}: {
  label: string;
  /** the heading of a refusal the API's catalog does not title */
  refusedTitle: string;
  submitLabel: string;
  /** a failure, or the words that say what was done */
  send(form: HTMLFormElement): Promise<{ failure: Failure } | { done: string }>;
  children: ComponentChildren;
}) {
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setOutcome(null);
    const o = await send(e.target as HTMLFormElement);
    setBusy(false);
    setOutcome(o);
  };
  return (
    <form class="form create-form" aria-label={label} onSubmit={submit}>
      {children}
      {outcome && 'failure' in outcome ? <Problem failure={outcome.failure} title={refusedTitle} alert /> : null}
      {outcome && 'done' in outcome ? (
        <div class="done" role="status">
          {outcome.done}
        </div>
      ) : null}
      <div class="form-actions">
        <button type="submit" class="button" disabled={busy}>
          {submitLabel}
        </button>
      </div>
    </form>
  );
}

export const failed = <T,>(r: Result<T>, done: string) => (r.ok ? { done } : { failure: r.error });
