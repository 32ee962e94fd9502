import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalRegion, regionCode } from '../../../src/ingest/parse/regions.js';
import { applyLocation } from '../../../src/ingest/parse/location.js';

// Codes and names are the ISO 3166-2 list's (iso-3166) and Unicode CLDR's English names.
test('a region is named by its ISO 3166-2 code, its subdivision part, or its name in the country', () => {
  const cases: [string | null, string, string | null][] = [
    ['US', 'US-CA', 'US-CA'],
    ['US', 'us-ca', 'US-CA'],
    [null, 'GB-ENG', 'GB-ENG'],
    ['US', 'CA', 'US-CA'],
    ['DE', 'BY', 'DE-BY'],
    ['US', 'California', 'US-CA'],
    // ISO's own (local) name and CLDR's English one
    ['DE', 'Bayern', 'DE-BY'],
    ['DE', 'Bavaria', 'DE-BY'],
    ['GB', 'England', 'GB-ENG'],
    ['FR', 'Île-de-France', 'FR-IDF'],
    ['FR', 'ile de france', 'FR-IDF'],
    // administrative words are ignored: DB-IP writes "State of Berlin", "Riyadh Region"
    ['DE', 'State of Berlin', 'DE-BE'],
    ['SA', 'Riyadh Region', 'SA-01'],
    // not a subdivision of the line's country, unknown, or no country to look in
    ['DE', 'US-CA', null],
    ['US', 'XX-12', null],
    ['US', 'Atlantis', null],
    [null, 'California', null],
    ['US', '  ', null],
  ];
  for (const [country, value, want] of cases) assert.equal(regionCode(country, value), want, `${country} ${value}`);
});

test('a line region that names no subdivision is kept as sent', () => {
  assert.equal(canonicalRegion('DE', 'Bavaria'), 'DE-BY');
  assert.equal(canonicalRegion('US', 'Atlantis'), 'Atlantis');
  assert.equal(canonicalRegion(null, 'Bavaria'), 'Bavaria');
});

const found = { country: 'US', region: 'US-CA', city: 'San Diego' };
const raw = (country: string | null, region: string | null, city: string | null) => ({ country, region, city });

test('derived location fills only what the line leaves empty, and only where it agrees with it', () => {
  const fill = (r: ReturnType<typeof raw>, f: typeof found | null = found) => {
    applyLocation(r, f);
    return r;
  };
  assert.deepEqual(fill(raw(null, null, null)), raw('US', 'US-CA', 'San Diego'));
  assert.deepEqual(fill(raw(null, null, null), null), raw(null, null, null));
  // explicit fields win
  assert.deepEqual(fill(raw('US', null, 'La Jolla')), raw('US', 'US-CA', 'La Jolla'));
  assert.deepEqual(fill(raw('US', 'California', null)), raw('US', 'California', 'San Diego'), 'the same region, named differently');
  // another country: nothing derived; another region: no derived city
  assert.deepEqual(fill(raw('DE', null, null)), raw('DE', null, null));
  assert.deepEqual(fill(raw('US', 'NY', null)), raw('US', 'NY', null));
  assert.deepEqual(fill(raw(null, 'Texas', null)), raw('US', 'Texas', null));
  // a database without a region for the address still gives the city
  assert.deepEqual(fill(raw(null, null, null), { country: 'JP', region: null, city: 'Tokyo' } as never), raw('JP', null, 'Tokyo'));
});
