// The site's saved funnels on the signed-in dashboard: a select of them (GET the workspace's funnels over
// the management API, this site's kept), and for the chosen one its steps as POST /app/api/api/v2/funnel
// answers them for the page's period (the site's days), tenant, traffic and filters: visitors, conversion
// from the first step, and the drop-off since the step before. Read again when those change. Funnels
// belong to the goals surface: a plan without it gets the upgrade note.
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { components } from '../../../src/client/api-types.js';
import { manage, postWithCsrf, seg } from '../api/manage.js';
import type { FunnelStep } from '../api/manage-types.js';
import { Skeleton, UpgradeNote } from '../ui/panel-state.js';
import { shown, useRead } from '../ui/use-read.js';
import { surfaceState, type PanelContext } from './context.js';
import { formatCount, formatExact } from './format.js';
import { PanelFailure } from './panel-words.js';
import { scopeOf } from './query-bodies.js';

type FunnelAnswer = components['schemas']['FunnelAnswer'];

const stepText = (s: FunnelStep) => ('page' in s ? `page ${s.page}` : `event ${s.event}`);
const pct = (n: number) => `${n.toLocaleString('en', { maximumFractionDigits: 1 })}%`;

export function FunnelPanel({ ctx }: { ctx: PanelContext }) {
  const surface = surfaceState(ctx.product, 'goals');
  const enabled = surface !== 'closed';
  const site = shown(
    useRead(enabled ? `funnel-site:${ctx.siteId}` : null, () => manage('GET', '/sites/{site_id}', { path: { site_id: ctx.siteId } })),
  );
  const workspace = site?.ok ? site.data.workspace : null;
  const listRead = useRead(workspace ? `funnels:${workspace.workspace_id}` : null, () =>
    manage('GET', '/workspaces/{workspace_id}/funnels', { path: { workspace_id: workspace!.workspace_id } }),
  );
  const list = shown(listRead);
  const funnels = list?.ok ? list.data.funnels.filter((f) => f.site_id === ctx.siteId) : [];
  const [picked, setPicked] = useState<string | null>(null);
  const chosen = funnels.find((f) => f.funnel_id === picked) ?? funnels[0] ?? null;
  // the page's site, days, tenant, traffic and filters, as every panel asks them
  const body = chosen ? { ...scopeOf(ctx.state, ctx.siteId, ctx.period), funnel_id: chosen.funnel_id } : null;
  const numbersRead = useRead(body ? `funnel:${JSON.stringify(body)}:${chosen?.updated_at}` : null, () =>
    postWithCsrf<FunnelAnswer>('/api/v2/funnel', body),
  );
  const numbers = shown(numbersRead);

  const failure = site && !site.ok ? site.error : list && !list.ok ? list.error : null;
  const loading = enabled && (!site || (site.ok && !list) || (chosen !== null && numbersRead.status === 'loading'));
  let content: JSX.Element;
  if (surface === 'closed') content = <UpgradeNote what="Funnels" plans="the Pro and Enterprise plans" />;
  else if (failure) content = <PanelFailure failure={failure} what="Funnels" />;
  else if (!list || surface === 'pending') content = <Skeleton rows={3} label="funnels" />;
  else if (!chosen) {
    const admin = workspace && workspace.role !== 'viewer';
    content = (
      <p class="empty">
        No funnels yet.{' '}
        {admin ? (
          <a href={`/app/settings/${seg(workspace.workspace_id)}/funnels`}>Define one in Settings &gt; Funnels</a>
        ) : (
          'An owner or admin of the workspace can define them in Settings.'
        )}
      </p>
    );
  } else if (!numbers) content = <Skeleton rows={chosen.steps.length} label="the funnel" />;
  else if (!numbers.ok) content = <PanelFailure failure={numbers.error} what="Funnels" />;
  else content = <FunnelSteps answer={numbers.data} steps={chosen.steps} />;

  return (
    <section class="panel funnel-panel" aria-labelledby="funnel-title" data-panel="funnels">
      <header class="panel-head">
        <h2 id="funnel-title">Funnels</h2>
        {funnels.length > 0 && chosen ? (
          <div class="panel-tools">
            <label class="field">
              <span class="field-label">Funnel</span>
              <select value={chosen.funnel_id} onChange={(e) => setPicked(e.currentTarget.value)}>
                {funnels.map((f) => (
                  <option key={f.funnel_id} value={f.funnel_id}>
                    {f.name}
                  </option>
                ))}
              </select>
            </label>
          </div>
        ) : null}
      </header>
      <div class={`funnel-body${loading && numbers ? ' stale' : ''}`} aria-busy={loading || surface === 'pending'}>
        {content}
      </div>
    </section>
  );
}

/** The steps in order: each with a bar as long as its share of the first step's visitors. */
function FunnelSteps({ answer, steps }: { answer: FunnelAnswer; steps: FunnelStep[] }) {
  return (
    <table class="plain-table funnel-table">
      <thead>
        <tr>
          <th scope="col">Step</th>
          <th scope="col" class="num">
            Visitors
          </th>
          <th scope="col" class="num">
            Conversion
          </th>
          <th scope="col" class="num">
            Drop-off
          </th>
        </tr>
      </thead>
      <tbody>
        {answer.steps.map((s, i) => (
          <tr key={i} data-step={i + 1} data-visitors={s.visitors}>
            <th scope="row" class="funnel-step">
              <span class="funnel-bar" style={{ width: `${Math.min(100, s.conversion_rate)}%` }} aria-hidden="true" />
              <span class="funnel-label">
                <span class="funnel-index">{i + 1}.</span> {steps[i] ? stepText(steps[i]) : s.label}
              </span>
            </th>
            <td class="num" title={formatExact(s.visitors)}>
              {formatCount(s.visitors)}
            </td>
            <td class="num">{pct(s.conversion_rate)}</td>
            <td class="num">{i === 0 ? '–' : `${formatCount(s.dropoff)} (${pct(s.dropoff_rate)})`}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
