// Strict ISO 8601 instants for `ts` (DESIGN 3): a calendar date, a time with seconds, an optional
// fraction and a mandatory zone (`Z` or an offset). Anything Date.parse would guess at is refused.

const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?(?:(Z)|([+-])(\d{2}):?(\d{2}))$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Milliseconds since the epoch, or null when `s` is not a valid instant. Fractions below 1 ms are truncated. */
export function parseIsoInstant(s: string): number | null {
  const m = ISO_INSTANT.exec(s);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  // Before 1970 is no web traffic; it also keeps Date.UTC away from its two-digit-year quirk.
  if (year < 1970) return null;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  // No leap second (:60): the stores cannot represent it.
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offsetMin = 0;
  if (!m[8]) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return null;
    offsetMin = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  return Date.UTC(year, month - 1, day, hour, minute, second, ms) - offsetMin * 60_000;
}

/** The UTC day (YYYY-MM-DD) of an instant. */
export function utcDayOf(tsMs: number): string {
  return new Date(tsMs).toISOString().slice(0, 10);
}
