// Strict ISO 8601 instants for `ts` (docs/product.md §3): a calendar date, a time with seconds, an
// optional fraction and a mandatory zone (`Z` or an offset). Anything Date.parse would guess at is refused.

const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?(?:(Z)|([+-])(\d{2}):?(\d{2}))$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Date.UTC of checked fields, or null: the range rules shared by both parsers below. */
function instantOf(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  ms: number,
  offsetMin: number,
): number | null {
  // Before 1970 is no web traffic; it also keeps Date.UTC away from its two-digit-year quirk.
  if (year < 1970) return null;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  // No leap second (:60): the stores cannot represent it.
  if (hour > 23 || minute > 59 || second > 59) return null;
  return Date.UTC(year, month - 1, day, hour, minute, second, ms) - offsetMin * 60_000;
}

/** The general parser: every form ISO_INSTANT accepts. */
export function parseIsoInstantGeneral(s: string): number | null {
  const m = ISO_INSTANT.exec(s);
  if (!m) return null;
  let offsetMin = 0;
  if (!m[8]) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return null;
    offsetMin = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  return instantOf(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), ms, offsetMin);
}

/** The digit at `i` as a number, or -1 (only ASCII 0-9, as `\d` without the u flag). */
function digit(s: string, i: number): number {
  const c = s.charCodeAt(i) - 48;
  return c >= 0 && c <= 9 ? c : -1;
}

/** Digits from..to (exclusive) as a number, or -1 when any is not a digit. */
function digits(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = digit(s, i);
    if (d < 0) return -1;
    n = n * 10 + d;
  }
  return n;
}

/**
 * Milliseconds since the epoch, or null when `s` is not a valid instant. Fractions below 1 ms are
 * truncated. The common `YYYY-MM-DDTHH:MM:SS[.fff]Z` is read without the regex; any other shape
 * (offsets, commas, anything malformed) goes to the general parser, which decides.
 */
export function parseIsoInstant(s: string): number | null {
  const len = s.length;
  if (
    len >= 20 &&
    len <= 30 &&
    s.charCodeAt(len - 1) === 90 /* Z */ &&
    s.charCodeAt(4) === 45 &&
    s.charCodeAt(7) === 45 &&
    s.charCodeAt(10) === 84 /* T */ &&
    s.charCodeAt(13) === 58 &&
    s.charCodeAt(16) === 58 &&
    (len === 20 || (len >= 22 && s.charCodeAt(19) === 46)) /* . */
  ) {
    const year = digits(s, 0, 4);
    const month = digits(s, 5, 7);
    const day = digits(s, 8, 10);
    const hour = digits(s, 11, 13);
    const minute = digits(s, 14, 16);
    const second = digits(s, 17, 19);
    // 1 to 9 fraction digits; the first three are the milliseconds, padded with zeros.
    let ms = 0;
    let ok = year >= 0 && month >= 0 && day >= 0 && hour >= 0 && minute >= 0 && second >= 0;
    for (let i = 20; ok && i < len - 1; i++) {
      const d = digit(s, i);
      if (d < 0) ok = false;
      else if (i < 23) ms += d * (i === 20 ? 100 : i === 21 ? 10 : 1);
    }
    if (ok) return instantOf(year, month, day, hour, minute, second, ms, 0);
  }
  return parseIsoInstantGeneral(s);
}

/** The UTC day (YYYY-MM-DD) of an instant. */
export function utcDayOf(tsMs: number): string {
  return new Date(tsMs).toISOString().slice(0, 10);
}
