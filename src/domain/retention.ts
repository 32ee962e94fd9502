// Technical retention (docs/product.md §10): the first UTC day a site keeps is today minus the plan's
// months, as calendar months; every day before it is purged. Pure: the caller gives today.

/**
 * The first kept day (YYYY-MM-DD) on `today` (YYYY-MM-DD, UTC) for a retention of `months` calendar months.
 * The same day of the month `months` earlier; when that month is shorter, its last day (2026-05-31 minus 3
 * months is 2026-02-28), so that a shorter month never keeps less than the months promised.
 */
export function firstKeptDay(today: string, months: number): string {
  if (!Number.isSafeInteger(months) || months < 0) throw new Error(`retention months must be a non-negative integer, got ${months}`);
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(today);
  if (!m) throw new Error(`not a day (YYYY-MM-DD): ${JSON.stringify(today)}`);
  const total = Number(m[1]) * 12 + (Number(m[2]) - 1) - months;
  const year = Math.floor(total / 12);
  const month = total - year * 12; // 0-based
  const lastOfMonth = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(Number(m[3]), lastOfMonth);
  return `${String(year).padStart(4, '0')}-${String(month + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** The UTC day (YYYY-MM-DD) of an instant. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}
