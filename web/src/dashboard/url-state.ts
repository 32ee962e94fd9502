// The dashboard's state as a signal that mirrors the address bar: a change pushes a history entry, and
// back/forward put the older state back.
import { signal } from '@preact/signals';
import { searchFromState, stateFromSearch, type DashboardState } from './query.js';

export const dashboardState = signal<DashboardState>(stateFromSearch(location.search));

addEventListener('popstate', () => {
  dashboardState.value = stateFromSearch(location.search);
});

export function setDashboardState(next: DashboardState): void {
  const url = location.pathname + searchFromState(next, location.search);
  if (url !== location.pathname + location.search) history.pushState(null, '', url);
  dashboardState.value = next;
}
