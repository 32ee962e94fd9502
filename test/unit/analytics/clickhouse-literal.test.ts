import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { encodeClickHouseLiteral } from '../../../src/engines/sql/clickhouse-literal.js';
import { clickhouseDialect } from '../../../src/engines/sql/dialect.js';
import { compileQuery } from '../../../src/engines/sql/read/compile-query.js';
import { normalizeSpec, type QuerySpec } from '../../../src/domain/query/query-spec.js';
import { runs } from '../../helpers/property-runs.js';

/**
 * ClickHouse's lexing of SQL text, reduced to what matters here: quoted strings (backslash escapes
 * the next character, a quote ends the literal) replaced by '?', everything else kept.
 * Returns the skeleton and the decoded literals.
 */
function lex(sql: string): { skeleton: string; literals: string[] } {
  let skeleton = '';
  const literals: string[] = [];
  for (let i = 0; i < sql.length; i++) {
    if (sql[i] !== "'") {
      skeleton += sql[i];
      continue;
    }
    let value = '';
    i++;
    for (;;) {
      if (i >= sql.length) throw new Error('unterminated literal');
      const c = sql[i];
      if (c === '\\') {
        value += sql[i + 1];
        i += 2;
      } else if (c === "'") {
        if (sql[i + 1] === "'") throw new Error('doubled quote inside literal: encoder must not rely on it');
        break;
      } else {
        value += c;
        i++;
      }
    }
    literals.push(value);
    skeleton += '?';
  }
  return { skeleton, literals };
}

const INJECTIONS = [
  "' OR 1=1 --",
  "\\' OR 1=1 --",
  "\\\\' OR 1=1 --",
  "'; DROP TABLE events; --",
  '\\',
  '\\\\',
  "'",
  "''",
  "x\\'y",
  '/*',
  '*/ SELECT 1 /*',
  '\n) UNION ALL SELECT secret FROM control --',
  '\u0000',
  'café 😀 \uFFFD',
];

test('string literals round-trip through the ClickHouse lexer, whatever the input', () => {
  fc.assert(
    fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom(...INJECTIONS), fc.stringMatching(/^[\\'"`;\-\n ]*$/)), (s) => {
      const encoded = encodeClickHouseLiteral(s);
      const { skeleton, literals } = lex(encoded);
      assert.equal(skeleton, '?');
      assert.deepEqual(literals, [s]);
    }),
    { numRuns: runs(2000) },
  );
});

test('backslash is escaped before the quote', () => {
  assert.equal(encodeClickHouseLiteral("a\\'b"), "'a\\\\\\'b'");
  assert.equal(encodeClickHouseLiteral("'"), "'\\''");
});

test('numbers must be finite and exact; null and booleans have fixed text', () => {
  assert.equal(encodeClickHouseLiteral(1740787200000), '1740787200000');
  assert.equal(encodeClickHouseLiteral(-0), '0');
  assert.equal(encodeClickHouseLiteral(0.5), '0.5');
  assert.equal(encodeClickHouseLiteral(null), 'NULL');
  assert.equal(encodeClickHouseLiteral(true), '1');
  for (const bad of [NaN, Infinity, -Infinity, 2 ** 60]) assert.throws(() => encodeClickHouseLiteral(bad), RangeError);
});

const baseSpec: QuerySpec = {
  siteId: 'site',
  tenantIds: ['t1', 't2'],
  startMs: 1_740_787_200_000,
  endMs: 1_741_391_999_999,
  trafficClasses: ['human'],
  filters: { page: '/a', country: 'DE', tenant: 't1' },
  metrics: ['pageviews', 'visitors', 'sessions', 'entries', 'bounce_rate'],
  dimension: 'page',
  keyIn: ['/a', null],
  limit: 10,
};

test('injected values never change the compiled ClickHouse query, only its literals', () => {
  const reference = lex(compileQuery(normalizeSpec(baseSpec), clickhouseDialect).sql).skeleton;
  fc.assert(
    fc.property(
      fc.oneof(fc.constantFrom(...INJECTIONS), fc.string({ unit: 'binary' })),
      fc.oneof(fc.constantFrom(...INJECTIONS), fc.string({ unit: 'binary', minLength: 1 })),
      (value, site) => {
        const spec = normalizeSpec({
          ...baseSpec,
          siteId: site,
          tenantIds: [value, 't2' + value],
          filters: { page: value, country: value, tenant: value },
          keyIn: [value, null],
        });
        const compiled = compileQuery(spec, clickhouseDialect);
        assert.deepEqual(compiled.params, []);
        const { skeleton, literals } = lex(compiled.sql);
        assert.equal(skeleton, reference);
        assert.ok(literals.includes(value));
        assert.ok(literals.includes(site));
      },
    ),
    { numRuns: runs(500) },
  );
});

test('ClickHouse SQL counts distinct keys exactly and never with uniq()', () => {
  const sql = compileQuery(normalizeSpec(baseSpec), clickhouseDialect).sql;
  assert.match(sql, /uniqExact\(/);
  assert.doesNotMatch(sql, /uniq\(|uniqCombined|uniqHLL|count\(DISTINCT/i);
  assert.match(sql, /intDiv\(/);
});
