// What the period is compared with: nothing, the period just before it, the same days a year before, or
// two dates of the reader's. Tiles show the change; the chart draws the compared period dashed. The
// query API compares (include.compare), so the numbers are its own.
import { useState } from 'preact/hooks';
import { dayLabel, isDay, type Day } from './periods.js';
import type { Compare, DashboardState } from './query.js';
import { DayField } from './day-field.js';
import { setDashboardState } from './url-state.js';

type Choice = 'off' | 'previous_period' | 'year_over_year' | 'custom';

const choiceOf = (c: Compare): Choice => (c === null ? 'off' : typeof c === 'string' ? c : 'custom');

export function ComparePicker({ state, today, first }: { state: DashboardState; today: Day; first: Day | null }) {
  const [custom, setCustom] = useState(false);
  const given = state.compare && typeof state.compare === 'object' ? state.compare : null;
  const [from, setFrom] = useState(given?.from ?? '');
  const [to, setTo] = useState(given?.to ?? '');
  const choice = custom ? 'custom' : choiceOf(state.compare);
  const choose = (value: Choice) => {
    setCustom(value === 'custom');
    if (value === 'custom') return;
    setDashboardState({ ...state, compare: value === 'off' ? null : value });
  };
  const valid = isDay(from) && isDay(to) && from <= to && to <= today && (first === null || from >= first);
  return (
    <div class="compare-picker">
      <label class="field">
        <span class="field-label">Compare with</span>
        <select value={choice} onChange={(e) => choose((e.target as HTMLSelectElement).value as Choice)}>
          <option value="off">Nothing</option>
          <option value="previous_period">The previous period</option>
          <option value="year_over_year">The same days a year before</option>
          <option value="custom">{given ? `${dayLabel(given.from)} – ${dayLabel(given.to)}` : 'Dates of my choice…'}</option>
        </select>
      </label>
      {custom ? (
        <form
          class="custom-dates"
          onSubmit={(e) => {
            e.preventDefault();
            if (!valid) return;
            setCustom(false);
            setDashboardState({ ...state, compare: { from, to } });
          }}
        >
          <DayField label="Compare from" value={from} first={first} today={today} onInput={setFrom} />
          <DayField label="Compare to" value={to} first={first} today={today} onInput={setTo} />
          <button type="submit" class="button" disabled={!valid}>
            Compare
          </button>
        </form>
      ) : null}
    </div>
  );
}
