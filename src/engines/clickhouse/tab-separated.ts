// Staged event rows in ClickHouse's TabSeparated format. An import's rows reach the stage tables as
// text; ClickHouse 18.16 parses TabSeparated about twice as fast as JSONEachRow (no key names to
// match: 32 of them per row), and the port's wire rows (JSON arrays, EVENT_ROW_FIELDS order) map to
// it field by field. The INSERT names the columns, so the order never depends on the table's.
import { decodedValues, EVENT_ROW_FIELDS, type EventRow } from '../../ports/event-store.js';
import { ROW_TYPES } from './schema.js';

const SPECIAL = /[\\\t\n\r\0]/;
const SPECIAL_ALL = /[\\\t\n\r\0]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\0': '\\0' };

type Kind = 'string' | 'nullable' | 'int' | 'bool' | 'strings';
const KINDS: readonly Kind[] = EVENT_ROW_FIELDS.map((f) => {
  const t = ROW_TYPES[f];
  return t === 'String'
    ? 'string'
    : t === 'Nullable(String)'
      ? 'nullable'
      : t === 'Int64'
        ? 'int'
        : t === 'UInt8'
          ? 'bool'
          : t === 'Array(String)'
            ? 'strings'
            : unsupported(f, t);
});

function unsupported(field: string, type: string): never {
  throw new Error(`no TabSeparated form for ${field} ${type}`);
}

function escaped(v: string): string {
  return SPECIAL.test(v) ? v.replace(SPECIAL_ALL, (c) => ESCAPES[c]) : v;
}

/**
 * An Array(String) as a TabSeparated field: ClickHouse reads it as its array literal, each element a
 * single-quoted string with backslash escapes (no tab, newline or NUL left bare to end the field or line).
 */
const QUOTED_SPECIAL_ALL = /[\\'\t\n\r\0]/g;
const QUOTED_ESCAPES: Record<string, string> = { ...ESCAPES, "'": "\\'" };
function strings(v: readonly string[]): string {
  let out = '[';
  for (let i = 0; i < v.length; i++) out += `${i ? ',' : ''}'${v[i].replace(QUOTED_SPECIAL_ALL, (c) => QUOTED_ESCAPES[c])}'`;
  return out + ']';
}

/**
 * One value of field `i` as a TabSeparated field, checked against the column's type as JSONEachRow
 * checked it: text alone would let a null into a non-null column (18.16 stores an empty string) or a
 * number into a text column.
 */
function field(v: unknown, i: number): string {
  switch (KINDS[i]) {
    case 'nullable':
      if (v === null) return '\\N';
      if (typeof v === 'string') return escaped(v);
      break;
    case 'string':
      if (typeof v === 'string') return escaped(v);
      break;
    case 'int':
      if (Number.isSafeInteger(v)) return String(v);
      break;
    case 'bool':
      if (typeof v === 'boolean') return v ? '1' : '0';
      break;
    case 'strings':
      if (Array.isArray(v) && v.every((s) => typeof s === 'string')) return strings(v);
      break;
  }
  throw new Error(`event row field ${EVENT_ROW_FIELDS[i]}: ${JSON.stringify(v)} is not a ${ROW_TYPES[EVENT_ROW_FIELDS[i]]}`);
}

function line(values: readonly unknown[]): string {
  let out = field(values[0], 0);
  for (let i = 1; i < values.length; i++) out += '\t' + field(values[i], i);
  return out + '\n';
}

/** EventRows as TabSeparated lines of EVENT_ROW_FIELDS. */
export function eventRowsTsv(rows: readonly EventRow[]): string {
  let out = '';
  for (const r of rows) out += line(EVENT_ROW_FIELDS.map((f) => r[f]));
  return out;
}

/** The port's wire rows (NDJSON of arrays in EVENT_ROW_FIELDS order, encodeEventRows) as TabSeparated lines. */
export function encodedRowsTsv(ndjson: string): string {
  let out = '';
  let start = 0;
  while (start < ndjson.length) {
    let end = ndjson.indexOf('\n', start);
    if (end < 0) end = ndjson.length;
    if (end > start) {
      out += line(decodedValues(JSON.parse(ndjson.slice(start, end))));
    }
    start = end + 1;
  }
  return out;
}

/** The column list an INSERT of these lines names. */
export const TSV_COLUMNS = `(${EVENT_ROW_FIELDS.map((f) => `\`${f}\``).join(', ')})`;
