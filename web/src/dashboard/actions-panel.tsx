// What visitors did besides reading pages: clicks, outbound links, downloads, forms and custom events,
// each by its name and detail (the query API's event:action), where the plan's dashboard has actions.
// The page's days, zone and filters apply, as in every other panel; a row filters the page by its action.
// A strict site keeps the simple actions alone: the answer's note says so, in the panel.
import type { JSX } from 'preact';
import { downloadQueryCsv } from '../api/csv.js';
import { Skeleton, UpgradeNote } from '../ui/panel-state.js';
import { shown } from '../ui/use-read.js';
import { surfaceState, type PanelContext } from './context.js';
import { CsvButton } from './csv-button.js';
import { PanelFailure } from './panel-words.js';
import { formatCount, formatExact } from './format.js';
import { actionsBody, rowKey } from './query-bodies.js';
import { RowFilter } from './row-filter.js';
import { useQuery } from './use-query.js';

/** Read like a top list's: the CSV holds the first 100 rows, the panel shows 10 of the same answer. */
const READ_ROWS = 100;
const SHOWN_ROWS = 10;

export function ActionsPanel({ ctx }: { ctx: PanelContext }) {
  const surface = surfaceState(ctx.product, 'actions');
  // asked at once, the plan's rules alongside: a refusal they then explain is not shown
  const enabled = surface !== 'closed';
  const query = enabled ? actionsBody(ctx.state, ctx.siteId, ctx.period, READ_ROWS) : null;
  const read = useQuery(ctx.reader, query);
  const result = shown(read);
  let body: JSX.Element;
  if (surface === 'closed') body = <UpgradeNote what="Actions" plans="the Starter, Pro and Enterprise plans" />;
  else if (!result || surface === 'pending') body = <Skeleton rows={6} label="actions" />;
  else if (ctx.nothingYet) body = <p class="empty">Nothing collected yet: actions show here once the site's pages send visits.</p>;
  else if (!result.ok) body = <PanelFailure failure={result.error} what="Actions" />;
  else {
    const rows = result.data.results.slice(0, SHOWN_ROWS).flatMap((r) => {
      const action = rowKey(r);
      return action === null ? [] : [{ action, visits: r.metrics[0], times: r.metrics[1] }];
    });
    body = (
      <>
        {(result.data.meta.notes ?? []).map((note) => (
          <p class="note" key={note} data-note="profile">
            {note}
          </p>
        ))}
        {rows.length === 0 ? (
          <p class="empty">No actions in this period{ctx.state.filters.length ? ' with these filters' : ''}.</p>
        ) : (
          <table class="plain-table">
            <thead>
              <tr>
                <th scope="col">Action</th>
                <th scope="col" class="num">
                  Visits
                </th>
                <th scope="col" class="num">
                  Times
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((a) => (
                <tr key={a.action} data-key={a.action} data-value={a.visits} data-events={a.times}>
                  <th scope="row" class="row-key">
                    <RowFilter state={ctx.state} dimension="action" value={a.action}>
                      {a.action}
                    </RowFilter>
                  </th>
                  <td class="num" title={formatExact(a.visits)}>
                    {formatCount(a.visits)}
                  </td>
                  <td class="num" title={formatExact(a.times)}>
                    {formatCount(a.times)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </>
    );
  }
  return (
    <section class="panel short" aria-labelledby="actions-title" data-panel="actions">
      <header class="panel-head">
        <h2 id="actions-title">Actions</h2>
        <div class="panel-tools">
          <CsvButton
            what="Actions"
            enabled={ctx.product.csv && query !== null}
            download={() => downloadQueryCsv(ctx.reader, query!, `${ctx.fileStem}-actions.csv`)}
          />
        </div>
      </header>
      <div
        class={`list-body${enabled && read.status === 'loading' && result ? ' stale' : ''}`}
        aria-busy={surface === 'pending' || (enabled && read.status === 'loading')}
      >
        {body}
      </div>
    </section>
  );
}
