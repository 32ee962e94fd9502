// RFC 4180 CSV, as the metrics routes answer Accept: text/csv (docs/product.md §5): UTF-8, CRLF after every
// record, a header row, a field quoted when it holds a comma, a double quote, CR or LF, its quotes doubled.
// Numbers are written as JSON writes them, so that a CSV value equals the JSON value it stands for.

export type CsvValue = string | number | null | undefined;

/** One field: null and undefined (a null key, a member the row lacks) are the empty field. */
export function csvField(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'number' ? JSON.stringify(value) : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The header row, then one record per row; every record ends with CRLF. */
export function csvText(header: readonly string[], rows: Iterable<readonly CsvValue[]>): string {
  const lines = [header.map(csvField).join(',')];
  for (const row of rows) lines.push(row.map(csvField).join(','));
  return lines.join('\r\n') + '\r\n';
}

/**
 * A payload's table with compare=prev_period: a leading `period` column (current, then compare rows);
 * without compare, the payload's columns alone.
 */
export function periodTable<P>(
  data: { current: P; compare: P | null },
  columns: readonly string[],
  rowsOf: (payload: P) => CsvValue[][],
): string {
  if (data.compare === null) return csvText(columns, rowsOf(data.current));
  const rows = [...rowsOf(data.current).map((r) => ['current', ...r]), ...rowsOf(data.compare).map((r) => ['compare', ...r])];
  return csvText(['period', ...columns], rows);
}
