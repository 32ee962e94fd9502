// Settings > Usage: this month's metered API units (what tokens spent on /v1; the dashboard itself is
// not metered), against the plan's included units and hard cap; and the events stored for the month
// (imports and collection, by each event's own timestamp) against the plan's included events. Overage of
// either is a preview: collection never stops for it.
import type { WorkspaceDetails } from '../api/manage-types.js';
import { ListState, Section, useManaged, when } from './kit.js';

const n = new Intl.NumberFormat('en');

export function UsageSettings({ ws }: { ws: WorkspaceDetails }) {
  const usage = useManaged('/workspaces/{workspace_id}/usage', { path: { workspace_id: ws.workspace.workspace_id } });
  return (
    <Section id="usage" title="Usage this month">
      <ListState listed={usage} label="usage">
        {(u) => (
          <div class="usage-grid">
            <div class="panel usage" data-usage="api-units">
              <h3>API units</h3>
              <p class="usage-value">
                {n.format(u.units_used)} <span class="muted">of {n.format(u.units_included)} included</span>
              </p>
              <meter
                min={0}
                max={Math.max(u.units_included, u.units_used, 1)}
                value={u.units_used}
                aria-label="API units used of the included units"
              />
              <dl class="facts">
                <dt>Month</dt>
                <dd>{u.period}</dd>
                <dt>Beyond the included units</dt>
                <dd>{n.format(u.units_overage)}</dd>
                <dt>Hard cap</dt>
                <dd>{u.hard_cap_units >= Number.MAX_SAFE_INTEGER ? 'none' : n.format(u.hard_cap_units)}</dd>
                <dt>Starts again</dt>
                <dd>{when(u.reset_at)}</dd>
              </dl>
              <p class="note">Units are spent by API tokens on /v1. Reading the dashboard costs none.</p>
            </div>
            <div class="panel usage" data-usage="events">
              <h3>Events</h3>
              {u.events_used === undefined ? (
                <p class="note">This server keeps no events, so it counts none.</p>
              ) : (
                <>
                  <p class="usage-value">
                    {n.format(u.events_used)}{' '}
                    <span class="muted">{u.events_included == null ? 'stored' : `of ${n.format(u.events_included)} included`}</span>
                  </p>
                  {u.events_included != null && (
                    <meter
                      min={0}
                      max={Math.max(u.events_included, u.events_used, 1)}
                      value={u.events_used}
                      aria-label="Events stored of the included events"
                    />
                  )}
                  <dl class="facts">
                    <dt>Beyond the included events</dt>
                    <dd>{n.format(u.events_overage ?? 0)}</dd>
                  </dl>
                  <p class="note">
                    Imports and collection, by each event's own time. Past the included events collection goes on; the overage is a preview.
                  </p>
                </>
              )}
            </div>
          </div>
        )}
      </ListState>
    </Section>
  );
}
