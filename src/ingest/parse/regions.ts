// Regions are stored as ISO 3166-2 codes (`US-CA`, `GB-ENG`, `DE-BY`). Geolocation databases and
// import lines name them in several ways: a full code, the code's subdivision part with the country
// (`CA` in the US), or a name (DB-IP writes English names such as "Bavaria"; a line may send the
// ISO list's own "Bayern"). The code list is iso-3166 (MIT); English names come from Unicode CLDR
// (cldr-subdivisions-full, Unicode-3.0).
import { createRequire } from 'node:module';
import { iso31662 } from 'iso-3166';
import { BoundedMemo } from './memo.js';

interface Tables {
  /** every current ISO 3166-2 code */
  codes: Set<string>;
  /** `${country}\u0000${normalized name}` -> code; null when two subdivisions of one level share the name */
  names: Map<string, string | null>;
}

let tables: Tables | null = null;

/** Administrative words that names carry or drop ("Riyadh Region", "State of Berlin", "Lodz Voivodeship"). */
const DESIGNATORS =
  /\b(?:region|province|governorate|oblast|state|city|county|voivodeship|department|district|municipality|prefecture|autonomous|capital|krai|kray|republic|of|the|d c|f d|emirate|parish|canton|metropolitan|territory|division)\b/g;

/** Lower case, accents and punctuation removed, administrative words dropped: "Île-de-France" -> "iledefrance". */
export function nameKey(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .replace(DESIGNATORS, ' ')
    .replace(/\s+/g, '');
}

function load(): Tables {
  if (tables) return tables;
  const codes = new Set<string>();
  const topLevel = new Set<string>();
  for (const e of iso31662) {
    codes.add(e.code);
    if (e.parent.length === 2) topLevel.add(e.code);
  }
  const require = createRequire(import.meta.url);
  const cldr = (
    require('cldr-subdivisions-full/subdivisions/en/en.json') as {
      subdivisions: { localeDisplayNames: { subdivisions: Record<string, string> } };
    }
  ).subdivisions.localeDisplayNames.subdivisions;

  // Candidates per name: a first-level subdivision wins over a lower one of the same name
  // ("Madrid" the community over Madrid the province); two of one level make the name ambiguous.
  const found = new Map<string, { code: string | null; top: boolean }>();
  const add = (code: string, name: string) => {
    const n = nameKey(name);
    if (n === '') return;
    const key = `${code.slice(0, 2)}\u0000${n}`;
    const top = topLevel.has(code);
    const had = found.get(key);
    if (!had || (top && !had.top)) found.set(key, { code, top });
    else if (had.code !== code && had.top === top) found.set(key, { code: null, top });
  };
  for (const e of iso31662) add(e.code, e.name);
  for (const [id, name] of Object.entries(cldr)) {
    const code = `${id.slice(0, 2)}-${id.slice(2)}`.toUpperCase();
    if (codes.has(code)) add(code, name);
  }
  const names = new Map<string, string | null>();
  for (const [key, v] of found) names.set(key, v.code);
  tables = { codes, names };
  return tables;
}

const CODE = /^([A-Za-z]{2})-([A-Za-z0-9]{1,3})$/;
const PART = /^[A-Za-z0-9]{1,3}$/;

/**
 * The ISO 3166-2 code a region value names within `country` (ISO 3166-1 alpha-2), or null when it
 * names none: a code of another country, an unknown name, or a name two subdivisions share.
 */
export function regionCode(country: string | null, value: string): string | null {
  const v = value.trim();
  if (v === '') return null;
  const t = load();
  const full = CODE.exec(v);
  if (full) {
    const code = v.toUpperCase();
    return t.codes.has(code) && (country === null || full[1].toUpperCase() === country) ? code : null;
  }
  if (country === null) return null;
  if (PART.test(v)) {
    const code = `${country}-${v.toUpperCase()}`;
    if (t.codes.has(code)) return code;
  }
  const n = nameKey(v);
  return n === '' ? null : (t.names.get(`${country}\u0000${n}`) ?? null);
}

const canonical = new BoundedMemo((key: string) => {
  const cut = key.indexOf('\u0000');
  return regionCode(cut === 0 ? null : key.slice(0, cut), key.slice(cut + 1));
}, 4096);

/**
 * The stored form of a region a line sends: its ISO 3166-2 code when it names one (see
 * regionCode), else the value as sent (explicit fields are never dropped).
 */
export function canonicalRegion(country: string | null, region: string): string {
  return canonical.get(`${country ?? ''}\u0000${region}`) ?? region;
}
