// The reports (actions, goal conversions) take the page's site, period, traffic and tenant but not its
// filters, which only the metrics routes read. The panels say so rather than look filtered.
import type { CommonParams, DashboardState } from './query.js';

export function reportQuery(params: CommonParams) {
  return { ...params, limit: 100 };
}

export function NotFilteredNote({ state }: { state: DashboardState }) {
  if (Object.keys(state.filters).length === 0) return null;
  return <p class="note">Filters do not apply here: these counts cover the whole site for the period, traffic and tenant.</p>;
}
