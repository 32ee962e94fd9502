// A form control with its visible label above it.
import type { ComponentChildren } from 'preact';

export function Field({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the control is the children, inside the label
    <label class="field stacked">
      <span class="field-label">{label}</span>
      {children}
    </label>
  );
}

/** A text field of a submitted form, as the API takes it: a string ('' when the form sends none). */
export function textOf(form: FormData, name: string): string {
  return String(form.get(name) ?? '');
}
