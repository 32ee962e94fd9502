// The representation a request asks for, on the routes that offer CSV beside the JSON envelope: the
// Accept header's preference (RFC 9110 §12.5.1). A media type's weight is that of the most specific range
// matching it; a tie goes to the more specific match, then to the range listed first, then to JSON. No
// Accept, or one matching neither, is JSON, as on every other route (nothing is answered 406).
export type Format = 'json' | 'csv';

interface Match {
  q: number;
  /** 2 type/subtype, 1 type/*, 0 any */
  specificity: number;
  index: number;
}

const NONE: Match = { q: 0, specificity: -1, index: Number.MAX_SAFE_INTEGER };
const CANDIDATES: Record<Format, [string, string]> = { json: ['application', 'json'], csv: ['text', 'csv'] };

/** Longer headers are not read past this many ranges: no client needs more to state a preference. */
const MAX_RANGES = 64;

export function negotiateFormat(accept: string | undefined): Format {
  if (!accept) return 'json';
  const best: Record<Format, Match> = { json: NONE, csv: NONE };
  const ranges = accept.split(',').slice(0, MAX_RANGES);
  ranges.forEach((raw, index) => {
    const [mediaRange, ...params] = raw.split(';').map((p) => p.trim().toLowerCase());
    const [type, subtype] = mediaRange.split('/');
    if (!type || !subtype) return;
    let q = 1;
    let charset: string | null = null;
    for (const param of params) {
      const eq = param.indexOf('=');
      const name = param.slice(0, eq).trim();
      const value = param
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1');
      if (name === 'q') q = qValue(value);
      else if (name === 'charset') charset = value;
    }
    for (const format of ['json', 'csv'] as const) {
      const [t, s] = CANDIDATES[format];
      const specificity = type === t && subtype === s ? 2 : type === t && subtype === '*' ? 1 : type === '*' && subtype === '*' ? 0 : -1;
      // CSV is written in UTF-8 only: a range asking for another charset does not match it.
      if (specificity < 0 || (format === 'csv' && charset !== null && charset !== 'utf-8' && charset !== 'utf8')) continue;
      if (specificity > best[format].specificity) best[format] = { q, specificity, index };
    }
  });
  const { json, csv } = best;
  if (csv.q <= 0) return 'json';
  if (csv.q !== json.q) return csv.q > json.q ? 'csv' : 'json';
  if (csv.specificity !== json.specificity) return csv.specificity > json.specificity ? 'csv' : 'json';
  return csv.index < json.index ? 'csv' : 'json';
}

/** A q value as RFC 9110 writes it (0 to 1, at most three decimals); anything else weighs 0. */
function qValue(text: string): number {
  if (!/^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(text)) return 0;
  return Number(text);
}
