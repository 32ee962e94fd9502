// The filters in force, each removable, and a way to remove them all. Rows of the top lists add them.
import { dimensionLabel, keyLabel } from './dimensions.js';
import { withoutFilter, type DashboardState } from './query.js';
import { setDashboardState } from './url-state.js';

export function FilterBar({ state }: { state: DashboardState }) {
  const entries = Object.entries(state.filters);
  if (entries.length === 0) return null;
  return (
    <div class="filter-bar" role="group" aria-label="Filters">
      <span class="muted">Filtered by</span>
      {entries.map(([dimension, value]) => {
        const text = `${dimensionLabel(dimension)} is ${keyLabel(dimension, value)}`;
        return (
          <button
            key={dimension}
            type="button"
            class="chip"
            data-filter={dimension}
            aria-label={`Remove the filter ${text}`}
            onClick={() => setDashboardState(withoutFilter(state, dimension))}
          >
            {text} <span aria-hidden="true">×</span>
          </button>
        );
      })}
      {entries.length > 1 ? (
        <button type="button" class="quiet-button" onClick={() => setDashboardState(withoutFilter(state, null))}>
          Remove all filters
        </button>
      ) : null}
    </div>
  );
}
