// A top list with tabs (one dimension per tab): the visitors per value, as the query API answers them
// for the page's state, each row with a bar to scale, the first ten shown and the rest a click away.
// Clicking a row filters the whole page by that value. A dimension the site's profile does not collect
// says so (locked), with the API's reason.
import { useState } from 'preact/hooks';
import { downloadQueryCsv } from '../api/csv.js';
import { Skeleton } from '../ui/panel-state.js';
import { Tabs } from '../ui/tabs.js';
import { shown } from '../ui/use-read.js';
import type { PanelContext } from './context.js';
import { CsvButton } from './csv-button.js';
import { dimensionLabel, keyLabel, type PanelSpec } from './dimensions.js';
import { formatCount, formatExact } from './format.js';
import { PanelFailure } from './panel-words.js';
import { isValueOf, withFilter, type FilterDimension } from './query.js';
import { listBody, rowKey, type QueryRow } from './query-bodies.js';
import { setDashboardState } from './url-state.js';
import { useQuery } from './use-query.js';

/** Rows read per list (one unit step of the route's price) and rows shown before "show all". */
const READ_ROWS = 100;
const FIRST_ROWS = 10;

export function TopList({ ctx, spec }: { ctx: PanelContext; spec: PanelSpec }) {
  const [tab, setTab] = useState(0);
  const active = spec.tabs[tab];
  const titleId = `${spec.id}-title`;
  const body = listBody(ctx.state, ctx.siteId, ctx.period, active.dimension, READ_ROWS);
  const read = useQuery(ctx.reader, body);
  const result = shown(read);
  return (
    <section class="panel list-panel" aria-labelledby={titleId} data-panel={spec.id}>
      <header class="panel-head">
        <h2 id={titleId}>{spec.title}</h2>
        <CsvButton
          what={active.label}
          enabled={ctx.product.csv}
          download={() => downloadQueryCsv(ctx.reader, body, `${ctx.fileStem}-${active.dimension}.csv`)}
        />
      </header>
      <Tabs id={spec.id} labels={spec.tabs.map((t) => t.label)} selected={tab} onSelect={setTab}>
        <div
          class={`list-body${read.status === 'loading' && result ? ' stale' : ''}`}
          aria-busy={read.status === 'loading'}
          data-dimension={active.dimension}
        >
          {!result ? (
            <Skeleton rows={FIRST_ROWS} label={active.label} />
          ) : !result.ok ? (
            <PanelFailure failure={result.error} what={active.label} />
          ) : (
            <Rows ctx={ctx} dimension={active.dimension} rows={result.data.results.map(toRow)} key={active.dimension} />
          )}
        </div>
      </Tabs>
    </section>
  );
}

export interface Row {
  /** null: the events without a value ("(none)") */
  key: string | null;
  value: number;
}
export const toRow = (r: QueryRow): Row => ({ key: rowKey(r), value: r.metrics[0] });

export function Rows({ ctx, dimension, rows }: { ctx: PanelContext; dimension: FilterDimension; rows: Row[] }) {
  const [all, setAll] = useState(false);
  if (rows.length === 0) return <p class="empty">No visitors in this period{ctx.state.filters.length ? ' with these filters' : ''}.</p>;
  const max = Math.max(...rows.map((r) => r.value), 1);
  const visible = all ? rows : rows.slice(0, FIRST_ROWS);
  const filtered = isValueOf(ctx.state, dimension);
  return (
    <>
      <div class="rows-head" aria-hidden="true">
        <span>{dimensionLabel(dimension)}</span>
        <span>Visitors</span>
      </div>
      <ol class="rows">
        {visible.map((row) => {
          const label = keyLabel(dimension, row.key);
          const width = `${Math.max((row.value / max) * 100, 0.5)}%`;
          const content = (
            <>
              <span class="row-main">
                <span class="bar" style={{ width }} />
                <span class="row-key" title={row.key ?? undefined}>
                  {label}
                </span>
              </span>
              <span class="row-value" title={formatExact(row.value)}>
                {formatCount(row.value)}
                <span class="sr-only"> visitors</span>
              </span>
            </>
          );
          return (
            <li key={row.key ?? ''} data-key={row.key ?? ''} data-value={row.value}>
              {row.key === null || filtered === row.key ? (
                <div class={`row${filtered === row.key ? ' current' : ''}`}>{content}</div>
              ) : (
                <button
                  type="button"
                  class="row"
                  aria-describedby="filter-hint"
                  onClick={() => setDashboardState(withFilter(ctx.state, { op: 'is', dimension, value: row.key! }))}
                >
                  {content}
                </button>
              )}
            </li>
          );
        })}
      </ol>
      {rows.length > FIRST_ROWS ? (
        <button type="button" class="quiet-button more" aria-expanded={all} onClick={() => setAll(!all)}>
          {all ? 'Show the first ten' : `Show all ${rows.length}`}
        </button>
      ) : null}
    </>
  );
}
