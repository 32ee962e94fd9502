// Goal conversions, where the plan's dashboard has goals: the query API's event:goal rows for the page's
// state (its days, tenant, traffic and filters): the visitors who reached each goal, its completions,
// and the conversion rate. Every goal of the site is listed (/v1/goals names them), none reached as 0.
// Extended-only: on a strict site the API refuses with 409 and the panel shows it as locked.
import type { JSX } from 'preact';
import { cachedRead, readKey } from '../api/read-cache.js';
import { Skeleton, UpgradeNote } from '../ui/panel-state.js';
import { shown, useRead } from '../ui/use-read.js';
import { surfaceState, type PanelContext } from './context.js';
import { PanelFailure } from './panel-words.js';
import { formatCount, formatExact } from './format.js';
import { goalsBody } from './query-bodies.js';
import { RowFilter } from './row-filter.js';
import { useQuery } from './use-query.js';

const rate = new Intl.NumberFormat('en', { maximumFractionDigits: 1 });

interface GoalRow {
  name: string;
  visitors: number;
  events: number;
  /** percent of the period's visitors */
  rate: number;
}

export function GoalsPanel({ ctx }: { ctx: PanelContext }) {
  const surface = surfaceState(ctx.product, 'goals');
  // asked at once, the plan's rules alongside: a refusal they then explain is not shown
  const enabled = surface !== 'closed';
  const listQuery = { site_id: ctx.siteId };
  const conversions = useQuery(ctx.reader, enabled ? goalsBody(ctx.state, ctx.siteId, ctx.period) : null);
  const goals = useRead(enabled ? readKey('/v1/goals', listQuery) : null, () => cachedRead(ctx.reader, '/v1/goals', listQuery));
  const answer = shown(conversions);
  const list = shown(goals);
  // the answer's rows, then every other goal of the site at zero (the list's failure: the rows alone)
  const result = answer?.ok && !list ? null : answer;
  let rows: GoalRow[] = [];
  if (result?.ok) {
    rows = result.data.results.map((r) => ({
      name: String(r.dimensions[0]),
      visitors: r.metrics[0],
      events: r.metrics[1],
      rate: r.metrics[2],
    }));
    const seen = new Set(rows.map((r) => r.name));
    if (list?.ok) for (const g of list.data.items) if (!seen.has(g.name)) rows.push({ name: g.name, visitors: 0, events: 0, rate: 0 });
  }
  let body: JSX.Element;
  if (surface === 'closed') body = <UpgradeNote what="Goal conversions" plans="the Pro and Enterprise plans" />;
  else if (!result || surface === 'pending') body = <Skeleton rows={4} label="goal conversions" />;
  else if (!result.ok) body = <PanelFailure failure={result.error} what="Goal conversions" />;
  else if (rows.length === 0) body = <p class="empty">No goals are configured for this site.</p>;
  else {
    body = (
      <table class="plain-table">
        <thead>
          <tr>
            <th scope="col">Goal</th>
            <th scope="col" class="num">
              Visitors
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
          {rows.map((g) => (
            <tr key={g.name} data-key={g.name} data-value={g.visitors} data-events={g.events} data-rate={g.rate}>
              <th scope="row" class="row-key">
                <RowFilter state={ctx.state} dimension="goal" value={g.name}>
                  {g.name}
                </RowFilter>
              </th>
              <td class="num" title={formatExact(g.visitors)}>
                {formatCount(g.visitors)}
              </td>
              <td class="num" title={formatExact(g.events)}>
                {formatCount(g.events)}
              </td>
              <td class="num">{`${rate.format(g.rate)}%`}</td>
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
      </div>
    </section>
  );
}
