// A form control with its visible label above it.
import type { ComponentChildren } from 'preact';

export function Field({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <label class="field stacked">
      <span class="field-label">{label}</span>
      {children}
    </label>
  );
}
