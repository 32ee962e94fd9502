// Local days, hours, ISO weeks and months of a zone as spans of UTC time (src/domain/zoned-time.ts):
// literal spans of days whose length the tz database makes odd (DST in New York and Berlin, +05:45 in
// Kathmandu, a skipped midnight in Santiago, a 30-minute shift on Lord Howe, a day Apia skipped), each
// written here from the zone's published rules; and properties against a minute-by-minute scan of the
// clock, which knows nothing of the module's search.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { dayStart, daySpan, isoWeekStart, localClock, localDay, zonedBuckets } from '../../src/domain/zoned-time.js';
import { runs } from '../helpers/property-runs.js';

const Z = (iso: string) => Date.parse(iso);
const HOUR = 3_600_000;

test('days whose length a zone makes odd, from its published rules', () => {
  // US DST ends Sunday 2026-11-01 at 02:00 EDT: the day runs from 04:00Z to 05:00Z the next day, 25 hours
  assert.deepEqual(daySpan('America/New_York', '2026-11-01'), { start: Z('2026-11-01T04:00:00Z'), end: Z('2026-11-02T05:00:00Z') });
  // EU DST starts Sunday 2026-03-29 at 01:00Z: 23 hours
  assert.deepEqual(daySpan('Europe/Berlin', '2026-03-29'), { start: Z('2026-03-28T23:00:00Z'), end: Z('2026-03-29T22:00:00Z') });
  // +05:45 all year
  assert.deepEqual(daySpan('Asia/Kathmandu', '2026-11-01'), { start: Z('2026-10-31T18:15:00Z'), end: Z('2026-11-01T18:15:00Z') });
  // Chile's DST starts on the first Sunday of September at 24:00: 2026-09-06 has no midnight, it starts at 01:00 -03
  assert.equal(dayStart('America/Santiago', '2026-09-06'), Z('2026-09-06T04:00:00Z'));
  assert.equal(localClock('America/Santiago', Z('2026-09-06T04:00:00Z')), '2026-09-06 01:00:00');
  // Apia moved across the date line: 2011-12-29 (-10) was followed by 2011-12-31 (+14)
  assert.deepEqual(daySpan('Pacific/Apia', '2011-12-30'), { start: Z('2011-12-30T10:00:00Z'), end: Z('2011-12-30T10:00:00Z') });
  assert.equal(dayStart('UTC', '2026-11-01'), Z('2026-11-01T00:00:00Z'));
});

test('hours: the hour a fall-back repeats is one bucket of two hours, the hour a spring skips is none', () => {
  const ny = zonedBuckets('America/New_York', '2026-11-01', '2026-11-01', 'hour');
  assert.equal(ny.length, 24);
  assert.deepEqual(ny[1], { label: '2026-11-01 01:00:00', start: Z('2026-11-01T05:00:00Z'), end: Z('2026-11-01T07:00:00Z') });
  assert.deepEqual(ny[2], { label: '2026-11-01 02:00:00', start: Z('2026-11-01T07:00:00Z'), end: Z('2026-11-01T08:00:00Z') });
  const berlin = zonedBuckets('Europe/Berlin', '2026-03-29', '2026-03-29', 'hour');
  assert.deepEqual(
    berlin.slice(1, 3).map((b) => b.label),
    ['2026-03-29 01:00:00', '2026-03-29 03:00:00'],
  );
  assert.equal(berlin.length, 23);
  // Lord Howe falls back 30 minutes (02:00 +11 -> 01:30 +10:30) on Sunday 2026-04-05: its 01 hour lasts 90 minutes
  const howe = zonedBuckets('Australia/Lord_Howe', '2026-04-05', '2026-04-05', 'hour');
  assert.deepEqual(howe[1], { label: '2026-04-05 01:00:00', start: Z('2026-04-04T14:00:00Z'), end: Z('2026-04-04T15:30:00Z') });
  assert.equal(howe.length, 24);
  // Chatham springs forward at 02:45 (+12:45 -> 03:45 +13:45) on Sunday 2027-09-26: its 02 hour lasts 45
  // minutes and its 03 hour 15
  const chatham = zonedBuckets('Pacific/Chatham', '2027-09-26', '2027-09-26', 'hour');
  assert.deepEqual(chatham.slice(2, 4), [
    { label: '2027-09-26 02:00:00', start: Z('2027-09-25T13:15:00Z'), end: Z('2027-09-25T14:00:00Z') },
    { label: '2027-09-26 03:00:00', start: Z('2027-09-25T14:00:00Z'), end: Z('2027-09-25T14:15:00Z') },
  ]);
  assert.equal(chatham.length, 24, 'every label of the day, 03 among them');
  assert.equal(chatham.at(-1)!.end - chatham[0].start, 23 * HOUR, 'a day of 23 hours');
  // Kathmandu's hours start at a quarter past the UTC hour
  assert.deepEqual(zonedBuckets('Asia/Kathmandu', '2026-11-01', '2026-11-01', 'hour')[0], {
    label: '2026-11-01 00:00:00',
    start: Z('2026-10-31T18:15:00Z'),
    end: Z('2026-10-31T19:15:00Z'),
  });
});

test('weeks and months are labelled by their own first day, and counted from the range start to its end', () => {
  const weeks = zonedBuckets('Asia/Kathmandu', '2026-10-28', '2026-11-10', 'week');
  assert.deepEqual(
    weeks.map((b) => [b.label, b.start, b.end]),
    [
      ['2026-10-26', Z('2026-10-27T18:15:00Z'), Z('2026-11-01T18:15:00Z')],
      ['2026-11-02', Z('2026-11-01T18:15:00Z'), Z('2026-11-08T18:15:00Z')],
      ['2026-11-09', Z('2026-11-08T18:15:00Z'), Z('2026-11-10T18:15:00Z')],
    ],
  );
  const months = zonedBuckets('America/New_York', '2026-10-15', '2026-12-31', 'month');
  assert.deepEqual(
    months.map((b) => [b.label, b.start, b.end]),
    [
      ['2026-10-01', Z('2026-10-15T04:00:00Z'), Z('2026-11-01T04:00:00Z')],
      ['2026-11-01', Z('2026-11-01T04:00:00Z'), Z('2026-12-01T05:00:00Z')],
      ['2026-12-01', Z('2026-12-01T05:00:00Z'), Z('2027-01-01T05:00:00Z')],
    ],
  );
  assert.equal(isoWeekStart('2026-11-01'), '2026-10-26'); // a Sunday belongs to the week of the Monday before
  assert.equal(isoWeekStart('2026-11-02'), '2026-11-02');
});

const ZONES = [
  'UTC',
  'America/New_York',
  'Europe/Berlin',
  'Asia/Kathmandu',
  'Asia/Kolkata',
  'America/Santiago',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'Pacific/Apia',
  'America/St_Johns',
  'Africa/Casablanca',
  'Asia/Tehran',
];

/** The first minute whose local day is `day` or later, found by reading the clock minute by minute (every offset since 1980 is whole minutes). */
function scannedDayStart(zone: string, day: string): number {
  for (let t = Date.parse(`${day}T00:00:00Z`) - 15 * HOUR; ; t += 60_000) if (localDay(zone, t) >= day) return t;
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const offsetAt = (zone: string, ms: number) => Date.parse(`${localClock(zone, ms).replace(' ', 'T')}Z`) - ms;

/** The days around each change of a zone's offset in 2020-2027, found by reading its clock at each UTC noon: where the odd days are. */
const CHANGES = ZONES.flatMap((zone) => {
  const out: [string, string][] = [];
  for (let ms = Date.UTC(2020, 0, 1, 12); ms < Date.UTC(2028, 0, 1); ms += 86_400_000)
    if (offsetAt(zone, ms) !== offsetAt(zone, ms + 86_400_000))
      for (const d of [-1, 0, 1, 2]) out.push([zone, isoDay(ms + d * 86_400_000)]);
  return out;
});

const days = fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2035, 11, 31) }).map(isoDay);
/** A zone and a day: half of them near one of its offset changes, half anywhere from 1990 to 2035. */
const zoneDays = fc.oneof(fc.constantFrom(...CHANGES), fc.tuple(fc.constantFrom(...ZONES), days));

test('the zones chosen change offset often enough to search', () => {
  assert.ok(CHANGES.length > 200, `${CHANGES.length} days near a change`);
});

test('a day starts at the first minute the clock shows it: against a scan of the clock', () => {
  fc.assert(
    fc.property(zoneDays, ([zone, day]) => {
      assert.equal(dayStart(zone, day), scannedDayStart(zone, day), `${zone} ${day}`);
    }),
    { numRuns: runs(150) },
  );
});

test('buckets cover the range without gap or overlap, and every instant of a bucket reads its label', () => {
  fc.assert(
    fc.property(
      zoneDays,
      fc.integer({ min: 0, max: 70 }),
      fc.constantFrom('hour', 'day', 'week', 'month') as fc.Arbitrary<'hour' | 'day' | 'week' | 'month'>,
      ([zone, from], length, unit) => {
        const to = new Date(Date.parse(`${from}T00:00:00Z`) + (unit === 'hour' ? length % 4 : length) * 86_400_000)
          .toISOString()
          .slice(0, 10);
        const buckets = zonedBuckets(zone, from, to, unit);
        // no bucket only where the zone skipped every day of the range
        if (buckets.length === 0) assert.equal(dayStart(zone, from), daySpan(zone, to).end, `${zone} ${from}..${to}`);
        else assert.equal(buckets[0].start, dayStart(zone, from));
        for (let i = 1; i < buckets.length; i++) assert.equal(buckets[i].start, buckets[i - 1].end, `${zone} ${unit} contiguous at ${i}`);
        for (const b of buckets) {
          assert.ok(b.end > b.start, `${zone} ${unit} ${b.label} not empty`);
          const first = localClock(zone, b.start);
          const last = localClock(zone, b.end - 1);
          if (unit === 'hour') {
            assert.equal(`${first.slice(0, 13)}:00:00`, b.label, `${zone} first instant of ${b.label}`);
            assert.equal(`${last.slice(0, 13)}:00:00`, b.label, `${zone} last instant of ${b.label}`);
          } else {
            const want = (d: string) => (unit === 'day' ? d : unit === 'week' ? isoWeekStart(d) : `${d.slice(0, 7)}-01`);
            assert.equal(want(first.slice(0, 10)), b.label, `${zone} first instant of ${unit} ${b.label}`);
            assert.equal(want(last.slice(0, 10)), b.label, `${zone} last instant of ${unit} ${b.label}`);
          }
        }
        if (buckets.length) assert.equal(buckets.at(-1)!.end, daySpan(zone, to).end);
      },
    ),
    { numRuns: runs(150) },
  );
});
