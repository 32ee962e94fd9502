// A site's dashboard: controls, filters, tiles, chart, top lists, actions and goals. The same component
// serves the dashboard (session reader), the embed and the share page (bearer readers, less chrome).
// Every read starts in the same pass (no read waits for another); the plan's rules (given by the page,
// or read from /v1/me) only change what is offered (hour interval, CSV, upgrade notes), never what is
// asked of the other reads.
import { useRef, useState } from 'preact/hooks';
import { cachedRead, readKey } from '../api/read-cache.js';
import type { Reader } from '../api/reader.js';
import { shown, useRead } from '../ui/use-read.js';
import { ActionsPanel } from './actions-panel.js';
import { Chart } from './chart.js';
import { dashboardProduct, UNKNOWN_PRODUCT, type DashboardProduct, type PanelContext } from './context.js';
import { Controls } from './controls.js';
import { TOP_LISTS } from './dimensions.js';
import { FilterBar } from './filter-bar.js';
import { FunnelPanel } from './funnel-panel.js';
import { GoalsPanel } from './goals-panel.js';
import { PageNote } from './page-note.js';
import { PropsPanel } from './props-panel.js';
import { todayIn } from './periods.js';
import { periodOf } from './query.js';
import { useReadyMark } from './ready-mark.js';
import { Tiles, useTilesRead } from './tiles.js';
import { TopList } from './top-list.js';
import { dashboardState } from './url-state.js';

export interface DashboardProps {
  reader: Reader;
  siteId: string;
  /** the reader may read the workspace's plan and the site's tenants (an embed token may not) */
  workspaceReads: boolean;
  /** the plan's rules when the page has them (the signed-in dashboard); absent: read /v1/me when workspaceReads */
  product?: DashboardProduct;
  /** a tenant the reader is sealed to (an embed token's): every read names it, and no picker is shown */
  sealedTenantId?: string | null;
  /** the site's name, for CSV file names */
  siteName?: string;
  /** the site is suspended (the signed-in page knows; elsewhere the reads' refusal tells) */
  suspended?: boolean;
  /** where the reader may resume a suspended site (an admin's or owner's Settings > Sites) */
  manageHref?: string;
  /** the site has no event yet */
  nothingYet?: boolean;
  /**
   * the site's time zone, when the page knows it (the signed-in dashboard, a share link): its "today" is
   * the presets' end. Absent (an embed): the query API's answers name it, and the page follows.
   */
  timeZone?: string;
}

const NO_QUERY = {};

export function Dashboard({
  reader,
  siteId,
  workspaceReads,
  product: given,
  sealedTenantId = null,
  siteName,
  suspended,
  manageHref,
  nothingYet,
  timeZone,
}: DashboardProps) {
  // the zone the answers name wins over the one given (an embed is given none)
  const [answeredZone, setAnsweredZone] = useState<string | null>(null);
  const zone = answeredZone ?? timeZone ?? null;
  const today = todayIn(zone);
  const root = useRef<HTMLDivElement>(null);
  useReadyMark(root);
  const me = useRead(workspaceReads && !given ? readKey('/v1/me', NO_QUERY) : null, () => cachedRead(reader, '/v1/me', NO_QUERY));
  const meResult = shown(me);
  const product = given ?? (meResult?.ok ? dashboardProduct(meResult.data) : UNKNOWN_PRODUCT);
  const url = dashboardState.value;
  const state = sealedTenantId ? { ...url, tenantId: sealedTenantId } : url;
  const period = periodOf(state, today);
  const stem = (siteName ?? siteId).replace(/[^\w.-]+/g, '_');
  const ctx: PanelContext = { reader, siteId, state, period, zone, product, fileStem: `${stem}-${period.from}-${period.to}`, nothingYet };
  const tiles = shown(useTilesRead(ctx));
  const named = tiles?.ok ? tiles.data.meta.timezone : null;
  if (named && named !== zone) setAnsweredZone(named);
  return (
    <div class="dashboard" ref={root}>
      <p id="filter-hint" class="sr-only">
        Choosing a row filters the whole page by it.
      </p>
      <PageNote ctx={ctx} today={today} suspended={suspended} manageHref={manageHref} member={workspaceReads} />
      <Controls ctx={ctx} today={today} tenantPicker={workspaceReads && !sealedTenantId} />
      <FilterBar ctx={ctx} />
      <Tiles ctx={ctx} />
      <Chart ctx={ctx} />
      <div class="grid">
        {TOP_LISTS.map((spec) => (
          <TopList key={spec.id} ctx={ctx} spec={spec} />
        ))}
        <PropsPanel ctx={ctx} />
        <ActionsPanel ctx={ctx} />
        <GoalsPanel ctx={ctx} />
        <FunnelPanel ctx={ctx} />
      </div>
    </div>
  );
}
