// Settings > Usage: this month's metered API units (what tokens spent on /v1; the dashboard itself is
// not metered), against the plan's included units and hard cap. Events collected per month are counted
// by another part of footfall: when the usage answer carries them (`events`), they are shown here too.
import { seg, type WorkspaceDetails } from '../api/manage.js';
import { ListState, Section, useManaged, when } from './kit.js';

interface Usage {
  period: string;
  units_used: number;
  units_included: number;
  units_overage: number;
  hard_cap_units: number;
  reset_at: string;
  /** events collected this month and the plan's allowance, once the server counts them */
  events?: { used: number; included: number | null };
}

const n = new Intl.NumberFormat('en');

export function UsageSettings({ ws }: { ws: WorkspaceDetails }) {
  const usage = useManaged<Usage>(`/workspaces/${seg(ws.workspace.workspace_id)}/usage`);
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
              <meter min={0} max={Math.max(u.units_included, u.units_used, 1)} value={u.units_used} aria-label="API units used of the included units" />
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
              {u.events ? (
                <p class="usage-value">
                  {n.format(u.events.used)} <span class="muted">{u.events.included === null ? 'collected' : `of ${n.format(u.events.included)} included`}</span>
                </p>
              ) : (
                <p class="note">Events collected this month are not counted here yet.</p>
              )}
            </div>
          </div>
        )}
      </ListState>
    </Section>
  );
}
