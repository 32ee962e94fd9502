// The bar above the numbers: period, compare, traffic class and tenant. Each writes the URL.
import { cachedRead, readKey } from '../api/read-cache.js';
import { shown, useRead } from '../ui/use-read.js';
import { surfaceState, type PanelContext } from './context.js';
import { ComparePicker } from './compare-picker.js';
import { DatePicker } from './date-picker.js';
import { firstKeptDay } from './page-note.js';
import { periodOf, TRAFFIC, type Traffic } from './query.js';
import type { Day } from './periods.js';
import { setDashboardState } from './url-state.js';

export function Controls({ ctx, today, tenantPicker }: { ctx: PanelContext; today: Day; tenantPicker: boolean }) {
  const { state } = ctx;
  const period = periodOf(state, today);
  return (
    <div class="controls" role="group" aria-label="What to show">
      <DatePicker key={`${period.from}/${period.to}`} state={state} today={today} first={firstKeptDay(ctx.product.retentionDays, today)} />
      <ComparePicker state={state} today={today} first={firstKeptDay(ctx.product.retentionDays, today)} />
      <label class="field">
        <span class="field-label">Traffic</span>
        <select
          value={state.traffic}
          onChange={(e) => setDashboardState({ ...state, traffic: (e.target as HTMLSelectElement).value as Traffic })}
        >
          {(Object.keys(TRAFFIC) as Traffic[]).map((t) => (
            <option key={t} value={t}>
              {TRAFFIC[t]}
            </option>
          ))}
        </select>
      </label>
      {tenantPicker && surfaceState(ctx.product, 'tenants') !== 'closed' ? <TenantPicker ctx={ctx} /> : null}
    </div>
  );
}

/** All tenants, or one: shown when the site has tenants the reader may see. */
function TenantPicker({ ctx }: { ctx: PanelContext }) {
  const query = { site_id: ctx.siteId };
  const result = shown(useRead(readKey('/v1/tenants', query), () => cachedRead(ctx.reader, '/v1/tenants', query)));
  const { state } = ctx;
  // No tenants, or a plan without them (asked with its rules still on their way): nothing to pick. A
  // chosen tenant stays visible in any case.
  const tenants = result?.ok && surfaceState(ctx.product, 'tenants') === 'open' ? result.data.items : [];
  if (tenants.length === 0 && !state.tenantId) return null;
  const known = tenants.some((t) => t.tenant_id === state.tenantId);
  return (
    <label class="field">
      <span class="field-label">Tenant</span>
      <select
        value={state.tenantId ?? ''}
        onChange={(e) => setDashboardState({ ...state, tenantId: (e.target as HTMLSelectElement).value || null })}
      >
        <option value="">All tenants</option>
        {state.tenantId && !known ? <option value={state.tenantId}>{state.tenantId}</option> : null}
        {tenants.map((t) => (
          <option key={t.tenant_id} value={t.tenant_id}>
            {t.tenant_name}
          </option>
        ))}
      </select>
    </label>
  );
}
