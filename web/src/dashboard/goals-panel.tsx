// Goal conversions (/v1/goals/conversions, named through /v1/goals), where the plan's dashboard has
// goals. Extended-only: on a strict site the API refuses with 409 and the panel shows it as locked.
import type { JSX } from 'preact';
import { cachedRead, readKey } from '../api/read-cache.js';
import { Skeleton, UpgradeNote } from '../ui/panel-state.js';
import { shown, useRead } from '../ui/use-read.js';
import { surfaceState, type PanelContext } from './context.js';
import { PanelFailure } from './panel-words.js';
import { formatCount, formatExact } from './format.js';
import { NotFilteredNote, reportQuery } from './report-scope.js';

const rate = new Intl.NumberFormat('en', { style: 'percent', maximumFractionDigits: 1 });

export function GoalsPanel({ ctx }: { ctx: PanelContext }) {
  const surface = surfaceState(ctx.product, 'goals');
  // asked at once, the plan's rules alongside: a refusal they then explain is not shown
  const enabled = surface !== 'closed';
  const query = reportQuery(ctx.params);
  const listQuery = { site_id: ctx.siteId };
  const conversions = useRead(enabled ? readKey('/v1/goals/conversions', query) : null, () =>
    cachedRead(ctx.reader, '/v1/goals/conversions', query),
  );
  const goals = useRead(enabled ? readKey('/v1/goals', listQuery) : null, () => cachedRead(ctx.reader, '/v1/goals', listQuery));
  const result = shown(conversions);
  const names = new Map<string, string>();
  const list = shown(goals);
  if (list?.ok) for (const g of list.data.items) names.set(g.goalId, g.name);
  let body: JSX.Element;
  if (surface === 'closed') body = <UpgradeNote what="Goal conversions" plans="the Pro and Enterprise plans" />;
  else if (!result || surface === 'pending') body = <Skeleton rows={4} label="goal conversions" />;
  else if (!result.ok) body = <PanelFailure failure={result.error} what="Goal conversions" />;
  else if (result.data.current.goals.length === 0) body = <p class="empty">No goals are configured for this site.</p>;
  else {
    body = (
      <table class="plain-table">
        <thead>
          <tr>
            <th scope="col">Goal</th>
            <th scope="col" class="num">
              Visits
            </th>
            <th scope="col" class="num">
              Total
            </th>
            <th scope="col" class="num">
              Rate
            </th>
          </tr>
        </thead>
        <tbody>
          {result.data.current.goals.map((g) => (
            <tr key={g.goal_id} data-key={g.goal_id} data-value={g.unique_sessions}>
              <th scope="row" class="row-key">
                {names.get(g.goal_id) ?? g.goal_id}
              </th>
              <td class="num" title={formatExact(g.unique_sessions)}>
                {formatCount(g.unique_sessions)}
              </td>
              <td class="num" title={formatExact(g.conversions)}>
                {formatCount(g.conversions)}
              </td>
              <td class="num">{g.total_sessions ? rate.format(g.unique_sessions / g.total_sessions) : '–'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    );
  }
  return (
    <section class="panel short" aria-labelledby="goals-title" data-panel="goals">
      <header class="panel-head">
        <h2 id="goals-title">Goal conversions</h2>
      </header>
      <div
        class={`list-body${enabled && conversions.status === 'loading' && result ? ' stale' : ''}`}
        aria-busy={surface === 'pending' || (enabled && conversions.status === 'loading')}
      >
        {body}
        {surface === 'open' && result?.ok ? <NotFilteredNote state={ctx.state} /> : null}
      </div>
    </section>
  );
}
