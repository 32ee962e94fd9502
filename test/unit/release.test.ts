// The release number means something (docs/decisions/upgrades.md): the code's FOOTFALL_VERSION is
// package.json's, and CHANGELOG.md has that release's section and names every control-plane
// migration and each store's schema version, so a change of the data without its line fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { FOOTFALL_VERSION } from '../../src/domain/release.js';
import { MIGRATION_NAMES } from '../../src/control/migrations/index.js';
import { SCHEMA_VERSION } from '../../src/engines/duckdb/schema.js';
import { CLICKHOUSE_SCHEMA_VERSION } from '../../src/engines/clickhouse/schema-version.js';

const read = (p: string) => fs.readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8');

test("FOOTFALL_VERSION is package.json's version (and package-lock.json's)", () => {
  assert.equal(JSON.parse(read('package.json')).version, FOOTFALL_VERSION);
  assert.equal(JSON.parse(read('package-lock.json')).version, FOOTFALL_VERSION);
});

test('CHANGELOG.md: a section for this release, every migration named, the store versions of this release', () => {
  const log = read('CHANGELOG.md');
  const section = new RegExp(`^## ${FOOTFALL_VERSION.replaceAll('.', '\\.')}\\b`, 'm');
  assert.match(log, section, `a "## ${FOOTFALL_VERSION}" section`);
  for (const m of MIGRATION_NAMES) assert.ok(log.includes(`\`${m}\``), `CHANGELOG.md names migration ${m}`);
  const current = log.slice(log.search(section)).split(/^## /m)[1];
  // A store version raised since the release is named in "## Unreleased", which then describes this code's
  // store; a version not raised since is the release's.
  const unreleased = /^## Unreleased\b/m.test(log) ? log.slice(log.search(/^## Unreleased\b/m)).split(/^## /m)[1] : '';
  const describing = (any: RegExp) => (any.test(unreleased) ? unreleased : current);
  assert.match(
    describing(/DuckDB `schema_version` \d/),
    new RegExp(`DuckDB \`schema_version\` ${SCHEMA_VERSION}\\b`),
    "this release's section (or Unreleased's, once it names one) gives DuckDB's schema_version",
  );
  assert.match(
    describing(/ClickHouse `ff_schema` version \d/),
    new RegExp(`ClickHouse \`ff_schema\` version ${CLICKHOUSE_SCHEMA_VERSION}\\b`),
    "and ClickHouse's",
  );
  assert.match(read('README.md'), /\(CHANGELOG\.md\)/, 'the README links it');
});
