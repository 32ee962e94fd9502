// Monthly usage periods (YYYY-MM, UTC) and strict calendar dates (YYYY-MM-DD). Pure.

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const PERIOD_RE = /^(\d{4})-(\d{2})$/;

/** The UTC month label of an instant. */
export function periodOf(at: Date): string {
  return `${String(at.getUTCFullYear()).padStart(4, '0')}-${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** First instant of the UTC month after the one holding `at`: when monthly counters reset. */
export function nextPeriodStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}

/** Shifts a YYYY-MM label by n months (negative goes back). */
export function addMonths(period: string, n: number): string {
  const m = PERIOD_RE.exec(period);
  if (!m) throw new Error(`not a period: ${period}`);
  const index = Number(m[1]) * 12 + (Number(m[2]) - 1) + n;
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;
}

/** Every period from `from` to `to` inclusive, oldest first (empty when from > to). */
export function periodsBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let p = from; p <= to; p = addMonths(p, 1)) out.push(p);
  return out;
}

/**
 * Parses a calendar date, rejecting impossible days (2025-02-30) that Date would roll over.
 * Returns the UTC midnight instant, or null when the text is not a real YYYY-MM-DD date.
 */
export function parseDate(text: string): Date | null {
  const m = DATE_RE.exec(text);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const at = new Date(Date.UTC(y, mo - 1, d));
  if (y < 1 || at.getUTCFullYear() !== y || at.getUTCMonth() !== mo - 1 || at.getUTCDate() !== d) return null;
  return at;
}

/** The UTC calendar date of an instant, YYYY-MM-DD. */
export function dateOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}
