// A date input of the dashboard's forms (the period's and the compared period's dates): a local day of the
// site, no earlier than the first day the plan keeps, no later than today.
import type { Day } from './periods.js';

export function DayField(props: { label: string; value: string; first: Day | null; today: Day; onInput: (value: string) => void }) {
  return (
    <label class="field">
      <span class="field-label">{props.label}</span>
      <input
        type="date"
        value={props.value}
        min={props.first ?? undefined}
        max={props.today}
        required
        onInput={(e) => props.onInput((e.target as HTMLInputElement).value)}
      />
    </label>
  );
}
