// The one audited way a value becomes ClickHouse SQL text (ARCHITECTURE principle 11).

/**
 * Encodes a value as a ClickHouse literal. Strings: backslash is escaped first, then the single
 * quote, so no input can end the literal (18.16 reads both \' and \\ inside '...').
 * Numbers must be finite; integers must be safe so the text is exact.
 */
export function encodeClickHouseLiteral(v: string | number | boolean | null): string {
  if (v === null) return 'NULL';
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new RangeError(`not a finite number: ${v}`);
    if (Number.isInteger(v) && !Number.isSafeInteger(v)) throw new RangeError(`integer out of exact range: ${v}`);
    // String() of a finite double is plain digits, a dot, or an exponent: nothing SQL can misread
    return Object.is(v, -0) ? '0' : String(v);
  }
  if (typeof v !== 'string') throw new TypeError(`cannot encode ${typeof v}`);
  return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
