// The name of a row in a table panel (a goal, an action) as a button that filters the whole page by it,
// as a top list's rows do; the row the page is filtered by already is plain text.
import type { ComponentChildren } from 'preact';
import { isValueOf, withFilter, type DashboardState, type FilterDimension } from './query.js';
import { setDashboardState } from './url-state.js';

export function RowFilter({
  state,
  dimension,
  value,
  children,
}: {
  state: DashboardState;
  dimension: FilterDimension;
  value: string;
  children: ComponentChildren;
}) {
  if (isValueOf(state, dimension) === value) return <span class="current-filter">{children}</span>;
  return (
    <button
      type="button"
      class="link-button row-filter"
      aria-describedby="filter-hint"
      onClick={() => setDashboardState(withFilter(state, { op: 'is', dimension, value }))}
    >
      {children}
    </button>
  );
}
