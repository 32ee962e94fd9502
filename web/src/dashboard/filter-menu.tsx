// "Add a filter": a dimension, is / is not / contains, and a value, with the values the period holds as
// suggestions (the query API's top values of the dimension containing what was typed, read a moment
// after typing stops). The filter goes in the URL as every other.
import { useEffect, useState } from 'preact/hooks';
import { shown } from '../ui/use-read.js';
import type { PanelContext } from './context.js';
import { DIMENSION_LABELS, keyLabel } from './dimensions.js';
import { listBody, rowKey } from './query-bodies.js';
import { OPERATORS, withFilter, type Dimension, type FilterOperator } from './query.js';
import { setDashboardState } from './url-state.js';
import { useQuery } from './use-query.js';

/** What the menu offers, in the order the panels show them (the tenant has its own picker). */
const FILTERABLE = (Object.keys(DIMENSION_LABELS) as Dimension[]).filter((d) => d !== 'tenant');
const SUGGESTIONS = 20;
const TYPING_MS = 250;

export function FilterMenu({ ctx }: { ctx: PanelContext }) {
  const [open, setOpen] = useState(false);
  const [dimension, setDimension] = useState<Dimension>('page');
  const [op, setOp] = useState<FilterOperator>('is');
  const [value, setValue] = useState('');
  const [typed, setTyped] = useState('');
  useEffect(() => {
    const t = setTimeout(() => setTyped(value.trim()), TYPING_MS);
    return () => clearTimeout(t);
  }, [value]);
  // the top values of the dimension for the page's state, narrowed to those containing what was typed
  const narrowed = typed
    ? { ...ctx.state, filters: [...ctx.state.filters, { op: 'contains' as const, dimension, value: typed }] }
    : ctx.state;
  const body = open ? listBody(narrowed, ctx.siteId, ctx.period, dimension, SUGGESTIONS) : null;
  const read = shown(useQuery(ctx.reader, body));
  const suggestions = read?.ok ? read.data.results.map((r) => rowKey(r)).filter((k): k is string => k !== null) : [];
  if (!open)
    return (
      <button type="button" class="quiet-button" aria-expanded="false" onClick={() => setOpen(true)}>
        + Add a filter
      </button>
    );
  const listId = 'filter-values';
  return (
    <form
      class="filter-menu"
      aria-label="Add a filter"
      onSubmit={(e) => {
        e.preventDefault();
        const v = value.trim();
        if (!v) return;
        setDashboardState(withFilter(ctx.state, { op, dimension, value: v }));
        setValue('');
        setOpen(false);
      }}
    >
      <label class="field">
        <span class="field-label">Filter by</span>
        <select value={dimension} onChange={(e) => setDimension((e.target as HTMLSelectElement).value as Dimension)}>
          {FILTERABLE.map((d) => (
            <option key={d} value={d}>
              {DIMENSION_LABELS[d]}
            </option>
          ))}
        </select>
      </label>
      <label class="field">
        <span class="field-label">Operator</span>
        <select value={op} onChange={(e) => setOp((e.target as HTMLSelectElement).value as FilterOperator)}>
          {(Object.keys(OPERATORS) as FilterOperator[]).map((o) => (
            <option key={o} value={o}>
              {OPERATORS[o]}
            </option>
          ))}
        </select>
      </label>
      <label class="field">
        <span class="field-label">Value</span>
        <input
          type="text"
          value={value}
          list={listId}
          required
          maxLength={2000}
          autocomplete="off"
          onInput={(e) => setValue((e.target as HTMLInputElement).value)}
        />
        <datalist id={listId}>
          {suggestions.map((s) => (
            <option key={s} value={s}>
              {keyLabel(dimension, s)}
            </option>
          ))}
        </datalist>
      </label>
      <button type="submit" class="button" disabled={!value.trim()}>
        Add
      </button>
      <button type="button" class="quiet-button" onClick={() => setOpen(false)}>
        Cancel
      </button>
    </form>
  );
}
