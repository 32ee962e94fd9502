// What visitors did besides reading pages: clicks, outbound links, downloads, forms and custom events
// (/v1/reports/actions), where the plan's dashboard has actions. On a strict site the advanced families
// are a locked section, named with its reason.
import type { JSX } from 'preact';
import { cachedRead, readKey } from '../api/read-cache.js';
import type { ReadBody } from '../api/read.js';
import { Skeleton, UpgradeNote } from '../ui/panel-state.js';
import { shown, useRead } from '../ui/use-read.js';
import { surfaceState, type PanelContext } from './context.js';
import { PanelFailure } from './panel-words.js';
import { formatCount, formatExact } from './format.js';
import { NotFilteredNote, reportQuery } from './report-scope.js';
import { LockedSections } from './locked-sections.js';
import { RowFilter } from './row-filter.js';

type Action = ReadBody<'/v1/reports/actions'>['current']['actions'][number];

function actionLabel(a: Action): string {
  const name = a.event_name ?? a.action_name;
  const detail = a.action_target_host ?? a.form_id ?? a.action_id;
  return detail ? `${name} · ${detail}` : name;
}

export function ActionsPanel({ ctx }: { ctx: PanelContext }) {
  const surface = surfaceState(ctx.product, 'actions');
  // asked at once, the plan's rules alongside: a refusal they then explain is not shown
  const enabled = surface !== 'closed';
  const query = reportQuery(ctx);
  const read = useRead(enabled ? readKey('/v1/reports/actions', query) : null, () => cachedRead(ctx.reader, '/v1/reports/actions', query));
  const result = shown(read);
  let body: JSX.Element;
  if (surface === 'closed') body = <UpgradeNote what="Actions" plans="the Starter, Pro and Enterprise plans" />;
  else if (!result || surface === 'pending') body = <Skeleton rows={6} label="actions" />;
  else if (ctx.nothingYet) body = <p class="empty">Nothing collected yet: actions show here once the site's pages send visits.</p>;
  else if (!result.ok) body = <PanelFailure failure={result.error} what="Actions" />;
  else {
    const actions = result.data.current.actions;
    body = (
      <>
        <LockedSections availability={result.data.availability} />
        {actions.length === 0 ? (
          <p class="empty">No actions in this period.</p>
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
              {actions.slice(0, 10).map((a) => (
                <tr key={a.action_key} data-key={a.action_key} data-value={a.sessions}>
                  <th scope="row" class="row-key">
                    <RowFilter state={ctx.state} dimension="event" value={a.event_name ?? a.action_name}>
                      {actionLabel(a)}
                    </RowFilter>
                  </th>
                  <td class="num" title={formatExact(a.sessions)}>
                    {formatCount(a.sessions)}
                  </td>
                  <td class="num" title={formatExact(a.occurrences)}>
                    {formatCount(a.occurrences)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <NotFilteredNote state={ctx.state} zone={ctx.zone} />
      </>
    );
  }
  return (
    <section class="panel short" aria-labelledby="actions-title" data-panel="actions">
      <header class="panel-head">
        <h2 id="actions-title">Actions</h2>
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
