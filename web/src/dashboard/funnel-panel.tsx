// The site's saved funnels, on the signed-in dashboard, an embed and a share link alike: a select of them
// (GET /api/v2/funnels through the page's reader), and for the chosen one its steps as POST
// /api/v2/funnel answers them for the page's period (the site's days), tenant, traffic and filters:
// visitors, conversion from the first step, and the drop-off since the step before. Read again when
// those change. Funnels belong to the goals surface: a plan without it gets the upgrade note; an embed
// token whose routes leave out `funnel` is refused in the API's words. The signed-in page also reads
// the person's role (the management API) to offer an admin the settings to define one.
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { components } from '../../../src/client/api-types.js';
import { manage, seg } from '../api/manage.js';
import { cachedPost, cachedRead, postKey, readKey } from '../api/read-cache.js';
import { Skeleton, UpgradeNote } from '../ui/panel-state.js';
import { shown, useRead } from '../ui/use-read.js';
import { surfaceState, type PanelContext } from './context.js';
import { formatCount, formatExact } from './format.js';
import { PanelFailure } from './panel-words.js';
import { scopeOf } from './query-bodies.js';

type FunnelAnswer = components['schemas']['FunnelAnswer'];
type FunnelStep = components['schemas']['FunnelStep'];

const stepText = (s: FunnelStep) => ('page' in s ? `page ${s.page}` : `event ${s.event}`);
const pct = (n: number) => `${n.toLocaleString('en', { maximumFractionDigits: 1 })}%`;

export function FunnelPanel({ ctx }: { ctx: PanelContext }) {
  const surface = surfaceState(ctx.product, 'goals');
  const enabled = surface !== 'closed';
  // who may define one: the signed-in person's role (an embed or a share link has none)
  const signedIn = ctx.reader.csrf === true;
  const site = shown(
    useRead(enabled && signedIn ? `funnel-site:${ctx.siteId}` : null, () =>
      manage('GET', '/sites/{site_id}', { path: { site_id: ctx.siteId } }),
    ),
  );
  const workspace = site?.ok ? site.data.workspace : null;
  const listQuery = { site_id: ctx.siteId };
  const listRead = useRead(enabled ? readKey('/api/v2/funnels', listQuery) : null, () =>
    cachedRead(ctx.reader, '/api/v2/funnels', listQuery),
  );
  const list = shown(listRead);
  const funnels = list?.ok ? list.data.funnels : [];
  const [picked, setPicked] = useState<string | null>(null);
  const chosen = funnels.find((f) => f.funnel_id === picked) ?? funnels[0] ?? null;
  // the page's site, days, tenant, traffic and filters, as every panel asks them
  const body = chosen ? { ...scopeOf(ctx.state, ctx.siteId, ctx.period), funnel_id: chosen.funnel_id } : null;
  const numbersRead = useRead(body ? `${postKey('/api/v2/funnel', body)}:${chosen?.updated_at}` : null, () =>
    cachedPost<FunnelAnswer>(ctx.reader, '/api/v2/funnel', body),
  );
  const numbers = shown(numbersRead);

  const failure = list && !list.ok ? list.error : null;
  const loading = enabled && (!list || (chosen !== null && numbersRead.status === 'loading'));
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
        ) : signedIn ? (
          'An owner or admin of the workspace can define them in Settings.'
        ) : (
          'The site defines none.'
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
