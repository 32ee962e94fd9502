// Custom properties: the keys the period's events hold (the query API's event:props, most visitors
// first), one picked, then its values with their visitors (event:props:<key>), as a top list: clicking
// a value filters the whole page by it. Nothing is stored under the strict profile: the API's 409
// says so in the panel.
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { downloadQueryCsv } from '../api/csv.js';
import { Skeleton } from '../ui/panel-state.js';
import { shown } from '../ui/use-read.js';
import type { PanelContext } from './context.js';
import { CsvButton } from './csv-button.js';
import { PanelFailure, panelWords } from './panel-words.js';
import { listBody, propKeysBody, rowKey } from './query-bodies.js';
import { Rows, toRow } from './top-list.js';
import { useQuery } from './use-query.js';

const READ_ROWS = 100;

export function PropsPanel({ ctx }: { ctx: PanelContext }) {
  const keysRead = useQuery(ctx.reader, propKeysBody(ctx.state, ctx.siteId, ctx.period));
  const keys = shown(keysRead);
  const names = keys?.ok ? keys.data.results.map((r) => rowKey(r)).filter((k): k is string => k !== null) : [];
  const [picked, setPicked] = useState<string | null>(null);
  const key = picked !== null && names.includes(picked) ? picked : (names[0] ?? null);
  const body = key === null ? null : listBody(ctx.state, ctx.siteId, ctx.period, `prop:${key}`, READ_ROWS);
  const valuesRead = useQuery(ctx.reader, body);
  const values = shown(valuesRead);
  const loading = keysRead.status === 'loading' || (body !== null && valuesRead.status === 'loading');
  let content: JSX.Element;
  if (!keys) content = <Skeleton rows={5} label="custom properties" />;
  else if (!keys.ok && keys.error.code === 'REPORT_LOCKED_BY_PROFILE')
    // a site under the strict profile stores none: said quietly, as a fact of its profile, not as a failed read
    content = (
      <p class="empty" data-code={keys.error.code}>
        {panelWords(keys.error, 'Custom properties')}
      </p>
    );
  else if (!keys.ok) content = <PanelFailure failure={keys.error} what="Custom properties" />;
  else if (key === null)
    content = (
      <p class="empty">
        No custom properties in this period{ctx.state.filters.length ? ' with these filters' : ''}: pages and events send them as{' '}
        <code>props</code>.
      </p>
    );
  else if (!values) content = <Skeleton rows={5} label={`the values of ${key}`} />;
  else if (!values.ok) content = <PanelFailure failure={values.error} what={`Property ${key}`} />;
  else content = <Rows ctx={ctx} dimension={`prop:${key}`} rows={values.data.results.map(toRow)} key={key} />;
  return (
    <section class="panel list-panel" aria-labelledby="props-title" data-panel="props">
      <header class="panel-head">
        <h2 id="props-title">Custom properties</h2>
        <div class="panel-tools">
          {names.length ? (
            <label class="field">
              <span class="field-label">Property</span>
              <select value={key ?? ''} onChange={(e) => setPicked((e.target as HTMLSelectElement).value)}>
                {names.map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </select>
            </label>
          ) : null}
          <CsvButton
            what={key ? `Property ${key}` : 'Custom properties'}
            enabled={ctx.product.csv && body !== null}
            download={() => downloadQueryCsv(ctx.reader, body!, `${ctx.fileStem}-prop-${key}.csv`)}
          />
        </div>
      </header>
      <div class={`list-body${loading && keys ? ' stale' : ''}`} aria-busy={loading} data-dimension={key ? `prop:${key}` : undefined}>
        {content}
      </div>
    </section>
  );
}
