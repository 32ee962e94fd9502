// What route-fuzz.test.ts sends in each parameter: bytes no store can hold (NUL, lone surrogates, bytes that
// are not UTF-8), huge values, numbers past every bound, odd types where strings go, and percent-encoding
// oddities; plus a few values drawn by fast-check from FUZZ_SEED, so a run is the same each time and a
// failure names a value that can be sent again.
import fc from 'fast-check';

export const FUZZ_SEED = 3838;

export interface FuzzValue<T> {
  /** how a failure names it (a 100 KB value by its shape) */
  label: string;
  value: T;
}

const HUGE = 100_000;

/** Random bytes, percent-encoded whatever they are (most are no UTF-8 at all), and random code units. */
const drawn = fc.sample(
  fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 12 }), fc.string({ unit: 'binary', minLength: 1, maxLength: 8 })),
  { seed: FUZZ_SEED, numRuns: 3 },
);

const percent = (bytes: Uint8Array) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');

/** Query and path values, already written as they go in the URL (what is not valid percent-encoding is sent as is). */
export const URL_VALUES: FuzzValue<string>[] = [
  ...[
    '%00',
    'a%00b',
    '%ED%A0%80',
    'x%ED%B0%80y',
    '%C0%80',
    '%FF',
    '%',
    '%zz',
    '%%',
    '%2500',
    '%2F',
    '%E2%80%AE',
    '..',
    '-1',
    '1e308',
    '9223372036854775808',
    'null',
    'true',
    '%5B%5D',
    '%7B%7D',
    '+',
    '%20',
    '%F0%9F%98%80',
  ].map((v) => ({ label: v, value: v })),
  { label: `x*${HUGE}`, value: 'x'.repeat(HUGE) },
  ...drawn.map(([bytes]) => ({ label: `seed ${FUZZ_SEED}: ${percent(bytes)}`, value: percent(bytes) })),
];

/** JSON values for body members (and a body as a whole). */
export const JSON_VALUES: FuzzValue<unknown>[] = [
  { label: '"\\u0000"', value: '\u0000' },
  { label: '"a\\u0000b"', value: 'a\u0000b' },
  { label: '"\\ud800"', value: '\ud800' },
  { label: '"x\\udc00y"', value: 'x\udc00y' },
  { label: '"\\ud83d\\ude00"', value: '\ud83d\ude00' },
  { label: `"x"*${HUGE}`, value: 'x'.repeat(HUGE) },
  { label: '""', value: '' },
  { label: '" "', value: ' ' },
  { label: '"%00"', value: '%00' },
  { label: '1e308', value: 1e308 },
  { label: '-1', value: -1 },
  { label: '2^63', value: 2 ** 63 },
  { label: '0.5', value: 0.5 },
  { label: '[]', value: [] },
  { label: '["\\u0000"]', value: ['\u0000'] },
  { label: '{}', value: {} },
  { label: '{"\\u0000":1}', value: { '\u0000': 1 } },
  { label: '{"a":{"b":"\\ud800"}}', value: { a: { b: '\ud800' } } },
  { label: 'null', value: null },
  { label: 'true', value: true },
  { label: 'false', value: false },
  ...drawn.map(([, s]) => ({ label: `seed ${FUZZ_SEED}: ${JSON.stringify(s)}`, value: s })),
];

/** A query parameter written oddly rather than given an odd value: repeated, bracketed, without `=`, empty. */
export const QUERY_FORMS = (name: string): FuzzValue<string>[] => [
  { label: `${name} repeated`, value: `${name}=a&${name}=b` },
  { label: `${name}[x]`, value: `${name}%5Bx%5D=1` },
  { label: `${name} without =`, value: name },
  { label: `${name} empty`, value: `${name}=` },
];
