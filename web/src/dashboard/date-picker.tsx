// The period: a preset (today, last 7/30/90 days, month to date, last month, year to date, the last 12
// months) or two dates, and the previous/next period beside it. Days are the site's local ones (its time
// zone, as the query API counts them): "today" is the site's today.
import { useState } from 'preact/hooks';
import { PRESETS, dayLabel, isDay, periodLabel, presetOf, presetPeriod, shiftPeriod, type Day, type PresetId } from './periods.js';
import { periodOf, type DashboardState } from './query.js';
import { DayField } from './day-field.js';
import { setDashboardState } from './url-state.js';

/** `first`: the first day the plan keeps (null: every day); the dates refuse an earlier one. */
export function DatePicker({ state, today, first = null }: { state: DashboardState; today: Day; first?: Day | null }) {
  const period = periodOf(state, today);
  const preset = presetOf(period, today);
  const [custom, setCustom] = useState(false);
  const [from, setFrom] = useState(period.from);
  const [to, setTo] = useState(period.to);
  const previous = shiftPeriod(period, -1, today);
  const next = shiftPeriod(period, 1, today);
  const showDates = custom || preset === null;
  const choose = (value: string) => {
    if (value === 'custom') {
      setFrom(period.from);
      setTo(period.to);
      setCustom(true);
      return;
    }
    setCustom(false);
    setDashboardState({ ...state, period: presetPeriod(value as PresetId, today) });
  };
  const validDates = isDay(from) && isDay(to) && from <= to && to <= today && (first === null || from >= first);
  const apply = (e: Event) => {
    e.preventDefault();
    if (!validDates) return;
    setCustom(false);
    setDashboardState({ ...state, period: { from, to } });
  };
  return (
    <div class="date-picker">
      <div class="stepper">
        <button
          type="button"
          class="icon-button"
          aria-label={previous ? `Previous period: ${periodLabel(previous, today)}` : 'Previous period'}
          disabled={!previous}
          onClick={() => previous && setDashboardState({ ...state, period: previous })}
        >
          <span aria-hidden="true">‹</span>
        </button>
        <label class="field">
          <span class="field-label">Period</span>
          <select value={showDates ? 'custom' : preset!} onChange={(e) => choose((e.target as HTMLSelectElement).value)}>
            {PRESETS.map((p) => (
              <option key={p.id} value={p.id}>
                {p.label}
              </option>
            ))}
            <option value="custom">{preset === null ? periodLabel(period, today) : 'Custom dates…'}</option>
          </select>
        </label>
        <button
          type="button"
          class="icon-button"
          aria-label={next ? `Next period: ${periodLabel(next, today)}` : 'Next period (none after today)'}
          disabled={!next}
          onClick={() => next && setDashboardState({ ...state, period: next })}
        >
          <span aria-hidden="true">›</span>
        </button>
      </div>
      {showDates ? (
        <form class="custom-dates" onSubmit={apply}>
          <DayField label="From" value={from} first={first} today={today} onInput={setFrom} />
          <DayField label="To" value={to} first={first} today={today} onInput={setTo} />
          <button type="submit" class="button" disabled={!validDates}>
            Apply
          </button>
          <span class="sr-only" aria-live="polite">
            {validDates
              ? ''
              : `Choose a start on or before the end${first ? `, from ${dayLabel(first)} on` : ''}, and an end no later than ${dayLabel(today)}.`}
          </span>
        </form>
      ) : null}
    </div>
  );
}
