// The filters in force, each removable, a way to remove them all, and the menu that adds one (a
// dimension, is / is not / contains, a value with suggestions). Rows of the top lists add "is" filters.
import { dimensionLabel, keyLabel } from './dimensions.js';
import type { PanelContext } from './context.js';
import { FilterMenu } from './filter-menu.js';
import { OPERATORS, withoutFilter, type Filter } from './query.js';
import { setDashboardState } from './url-state.js';

/** A filter in words: "Country is France", "Page contains blog". */
export function filterText(f: Filter): string {
  return `${dimensionLabel(f.dimension)} ${OPERATORS[f.op]} ${f.op === 'contains' ? `“${f.value}”` : keyLabel(f.dimension, f.value)}`;
}

export function FilterBar({ ctx }: { ctx: PanelContext }) {
  const { state } = ctx;
  const filters = state.filters;
  return (
    <div class="filter-bar" role="group" aria-label="Filters">
      {filters.length ? <span class="muted">Filtered by</span> : null}
      {filters.map((f, i) => {
        const text = filterText(f);
        return (
          <button
            key={`${f.op}:${f.dimension}:${f.value}`}
            type="button"
            class="chip"
            data-filter={f.dimension}
            data-op={f.op}
            aria-label={`Remove the filter ${text}`}
            onClick={() => setDashboardState(withoutFilter(state, i))}
          >
            {text} <span aria-hidden="true">×</span>
          </button>
        );
      })}
      {filters.length > 1 ? (
        <button type="button" class="quiet-button" onClick={() => setDashboardState(withoutFilter(state, null))}>
          Remove all filters
        </button>
      ) : null}
      <FilterMenu ctx={ctx} />
    </div>
  );
}
