// A plain list table in a keyboard-scrollable region (settings lists): a header row and cells as given,
// "None yet." when there are no rows.
import type { ComponentChildren } from 'preact';

export function PlainTable({ label, head, rows }: { label: string; head: readonly string[]; rows: readonly ComponentChildren[][] }) {
  if (rows.length === 0) return <p class="empty">None yet.</p>;
  return (
    <div class="table-scroll" tabIndex={0} role="region" aria-label={`${label}, scrollable`}>
      <table class="plain-table">
        <thead>
          <tr>
            {head.map((h, i) => (
              <th key={i} scope="col">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={i}>
              {row.map((c, j) => (
                <td key={j}>{c}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
