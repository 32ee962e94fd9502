// A top list with tabs (one breakdown dimension per tab): the visitors per key, each row with a bar
// to scale, the first ten shown and the rest a click away. Clicking a row filters the whole page by
// that key. A dimension the site's profile does not collect says so (locked), with the API's reason.
import { useState } from 'preact/hooks';
import { downloadCsv } from '../api/csv.js';
import { cachedRead, readKey } from '../api/read-cache.js';
import type { ReadBody } from '../api/read.js';
import { Skeleton } from '../ui/panel-state.js';
import { Tabs } from '../ui/tabs.js';
import { shown, useRead } from '../ui/use-read.js';
import type { PanelContext } from './context.js';
import { CsvButton } from './csv-button.js';
import { dimensionLabel, keyLabel, type PanelSpec } from './dimensions.js';
import { formatCount, formatExact } from './format.js';
import { PanelFailure } from './panel-words.js';
import { breakdownQuery, withFilter, type Dimension } from './query.js';
import { setDashboardState } from './url-state.js';

/** Rows read per list (one unit step of the route's price) and rows shown before "show all". */
const READ_ROWS = 100;
const FIRST_ROWS = 10;

export function TopList({ ctx, spec }: { ctx: PanelContext; spec: PanelSpec }) {
  const [tab, setTab] = useState(0);
  const active = spec.tabs[tab];
  const titleId = `${spec.id}-title`;
  const query = breakdownQuery(ctx.state, ctx.params, active.dimension, READ_ROWS);
  const read = useRead(readKey('/v1/metrics/breakdown', query), () => cachedRead(ctx.reader, '/v1/metrics/breakdown', query));
  const result = shown(read);
  return (
    <section class="panel list-panel" aria-labelledby={titleId} data-panel={spec.id}>
      <header class="panel-head">
        <h2 id={titleId}>{spec.title}</h2>
        <CsvButton
          what={active.label}
          enabled={ctx.product.csv}
          download={() => downloadCsv(ctx.reader, '/v1/metrics/breakdown', query, `${ctx.fileStem}-${active.dimension}.csv`)}
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
            <Rows ctx={ctx} dimension={active.dimension} rows={result.data.current.rows} key={active.dimension} />
          )}
        </div>
      </Tabs>
    </section>
  );
}

type Row = ReadBody<'/v1/metrics/breakdown'>['current']['rows'][number];

function Rows({ ctx, dimension, rows }: { ctx: PanelContext; dimension: Dimension; rows: Row[] }) {
  const [all, setAll] = useState(false);
  if (rows.length === 0)
    return <p class="empty">No visitors in this period{Object.keys(ctx.state.filters).length ? ' with these filters' : ''}.</p>;
  const max = Math.max(...rows.map((r) => r.value), 1);
  const visible = all ? rows : rows.slice(0, FIRST_ROWS);
  const filtered = ctx.state.filters[dimension];
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
                  onClick={() => setDashboardState(withFilter(ctx.state, dimension, row.key!))}
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
