// What every settings section is made of: a list read from the management API that can be read again
// after a change, a form that posts and shows the answer or the refusal in words, buttons that change
// one thing (two steps for what cannot be undone), the note of a plan that does not include a part, and
// the site a new record belongs to.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { manage, manageUrl, type ManageAnswer, type ManageArgs, type ManagePath } from '../api/manage.js';
import type { SiteRecord } from '../api/manage-types.js';
import type { Failure, Result } from '../api/read.js';
import { PLAN_DECIDED, Problem, Skeleton } from '../ui/panel-state.js';
import { Field } from '../ui/field.js';
import { shown, useRead } from '../ui/use-read.js';

export interface Listed<T> {
  result: Result<T> | null;
  loading: boolean;
  reload(): void;
}

/** GET `path` of the management API (its parameters as manage() takes them), read again by reload(). */
export function useManaged<P extends ManagePath<'GET'>>(path: P, ...args: ManageArgs<'GET', P>): Listed<ManageAnswer<'GET', P>> {
  const [version, setVersion] = useState(0);
  const url = manageUrl(path, (args as { path?: Record<string, string> }[])[0]?.path);
  const state = useRead(`${url}#${version}`, () => manage('GET', path, ...args));
  return { result: shown(state), loading: state.status === 'loading', reload: () => setVersion((v) => v + 1) };
}

/** A list's three states: loading, refused (in words), or its rows. */
export function ListState<T>({ listed, label, children }: { listed: Listed<T>; label: string; children: (data: T) => ComponentChildren }) {
  if (!listed.result) return <Skeleton rows={3} label={label} />;
  if (!listed.result.ok) return <Problem failure={listed.result.error} />;
  return <div class={listed.loading ? 'stale' : undefined}>{children(listed.result.data)}</div>;
}

type Outcome = { failure: Failure } | { done: ComponentChildren } | null;

/**
 * A form that sends itself: `send` gets the form's fields and answers a Result; on success `shown`
 * says what to show (a secret once, a record to publish) and `after` runs (a list is read again).
 */
export function SendForm<T>({
  title,
  submitLabel,
  send,
  shown: show,
  after,
  children,
}: {
  title: string;
  submitLabel: string;
  send(form: FormData): Promise<Result<T>>;
  shown?: (data: T) => ComponentChildren;
  after?: (data: T) => void;
  children: ComponentChildren;
}) {
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    setBusy(true);
    const r = await send(new FormData(form));
    setBusy(false);
    if (!r.ok) return setOutcome({ failure: r.error });
    form.reset();
    setOutcome({ done: show ? show(r.data) : null });
    after?.(r.data);
  };
  return (
    <form class="form create-form" onSubmit={submit}>
      <h3>{title}</h3>
      {children}
      {outcome && 'failure' in outcome ? <Problem failure={outcome.failure} title="Not saved" alert /> : null}
      {outcome && 'done' in outcome && outcome.done ? (
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

/**
 * A button that changes one thing and says how it went. With `confirm`, a first press asks (in the
 * page, not a dialog) and a second one does it.
 */
export function ActionButton<T>({
  label,
  run,
  after,
  confirm,
  quiet = false,
}: {
  label: string;
  run(): Promise<Result<T>>;
  after?: (data: T) => void;
  confirm?: string;
  quiet?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const go = async () => {
    setAsking(false);
    setBusy(true);
    const r = await run();
    setBusy(false);
    if (!r.ok) return setFailure(r.error);
    setFailure(null);
    after?.(r.data);
  };
  const cls = quiet ? 'quiet-button' : 'button secondary';
  return (
    <span class="action">
      {asking ? (
        <span class="confirm" role="group" aria-label={confirm}>
          <span>{confirm}</span>
          {/* biome-ignore lint/a11y/noAutofocus: focus moves to the confirmation the person just asked for, so the keyboard answers it */}
          <button type="button" class="button danger" onClick={go} autoFocus>
            Yes, {label.toLowerCase()}
          </button>
          <button type="button" class="quiet-button" onClick={() => setAsking(false)}>
            Cancel
          </button>
        </span>
      ) : (
        <button type="button" class={cls} disabled={busy} onClick={() => (confirm ? setAsking(true) : go())}>
          {label}
        </button>
      )}
      {failure ? <Problem failure={failure} title="Not done" alert /> : null}
    </span>
  );
}

/** A settings section: its heading, with a note beside it, and its content. */
export function Section({
  id,
  title,
  note,
  children,
}: {
  id: string;
  title: string;
  note?: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <section class="settings-section" aria-labelledby={`${id}-title`}>
      <header class="section-head">
        <h2 id={`${id}-title`}>{title}</h2>
        {note}
      </header>
      {children}
    </section>
  );
}

/** The site a new record (a goal, a tenant, a share link) belongs to; `onChange` hears the one picked. */
export function SiteField({
  sites,
  value,
  onChange,
}: {
  sites: readonly SiteRecord[];
  value?: string;
  onChange?: (siteId: string) => void;
}) {
  return (
    <Field label="Site">
      <select name="site_id" required value={value} onChange={onChange && ((e) => onChange((e.target as HTMLSelectElement).value))}>
        {sites.map((s) => (
          <option key={s.site_id} value={s.site_id}>
            {s.name}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** A part of the settings the plan does not include: said plainly, not as an error. */
export function PlanNote({ children }: { children: ComponentChildren }) {
  return (
    <div class="problem upgrade" data-code="PLAN">
      <p class="problem-title">Not in this workspace's plan</p>
      <p class="problem-message">
        {children} {PLAN_DECIDED}
      </p>
    </div>
  );
}

/** "3 of 10", or "3 (no limit)". */
export function usedOf(used: number, limit: number | null): string {
  return limit === null ? `${used} (no limit)` : `${used} of ${limit}`;
}

const dateFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
/** An instant as a person reads it, in UTC as the numbers are. */
export function when(iso: string | null | undefined): string {
  return iso ? `${dateFormat.format(new Date(iso))} UTC` : '–';
}

const dayFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeZone: 'UTC' });
/** The day of an instant (UTC). */
export function day(iso: string): string {
  return dayFormat.format(new Date(iso));
}

/** A comma- or space-separated list typed into one field. */
export function listField(v: FormDataEntryValue | null): string[] {
  return String(v ?? '')
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}
