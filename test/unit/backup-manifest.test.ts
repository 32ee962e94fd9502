// A backup's manifest.json as a restore reads it (src/services/backup/manifest.ts): one made by newer code
// is refused whatever made it newer (its version, a control-plane migration, the events schema, the
// layout), a malformed one or one naming a file outside the backup is refused, and the store facts it
// records are compared line by line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BackupError } from '../../src/services/backup/backup-error.js';
import { buildManifest, compareVersions, factDifferences, factsOf, parseManifest } from '../../src/services/backup/manifest.js';
import type { CodeVersions, StoreFacts } from '../../src/ports/backup.js';

const CODE: CodeVersions = { version: '1.4.2', controlMigrations: ['001_initial', '002_more'], eventsSchemaVersion: 3 };
const FACTS: StoreFacts = {
  control: { migrations: ['001_initial', '002_more'], counts: { sites: 2, tokens: 1 } },
  events: { schemaVersion: 3, counts: { events: 10, footfall_meta: 2 } },
  spools: { abcdefgh12: 4 },
};
const manifest = () =>
  JSON.parse(
    JSON.stringify(
      buildManifest({
        code: CODE,
        createdAt: new Date('2026-01-02T03:04:05Z'),
        via: 'server',
        facts: FACTS,
        files: [{ path: 'spool/abcdefgh12/000000000001.log', bytes: 12, sha256: 'a'.repeat(64) }],
      }),
    ),
  );
const parse = (m: unknown, code = CODE) => parseManifest(JSON.stringify(m), code, '/backups/b1');

function refused(m: unknown, code: string, message: RegExp): void {
  assert.throws(
    () => parse(m),
    (err: unknown) => err instanceof BackupError && err.code === code && message.test(err.message),
  );
}

test('a manifest of this code reads back as written, facts and all', () => {
  const m = parse(manifest());
  assert.deepEqual(factsOf(m), FACTS);
  assert.equal(m.footfall_version, '1.4.2');
  // an older backup is fine: restoring it migrates at the first start
  assert.equal(
    parse(manifest(), { ...CODE, version: '2.0.0', controlMigrations: [...CODE.controlMigrations, '003_next'] }).taken_via,
    'server',
  );
});

test('a backup of newer code is refused, naming what is newer and what to do', () => {
  const newerVersion = { ...manifest(), footfall_version: '1.10.0' };
  refused(
    newerVersion,
    'BACKUP_FROM_NEWER_VERSION',
    /made by footfall 1\.10\.0, newer than this footfall 1\.4\.2 by its version.*upgrade footfall/,
  );
  const m = manifest();
  m.schema.control_migrations.push('003_future');
  refused(m, 'BACKUP_FROM_NEWER_VERSION', /control-plane migrations 003_future, which this footfall does not have/);
  const s = manifest();
  s.schema.events_schema_version = 4;
  refused(s, 'BACKUP_FROM_NEWER_VERSION', /events schema version 4 \(this footfall's is 3\)/);
  // a later layout is refused before the rest is read (it may not have the rest)
  refused(
    { format: 'footfall-backup', format_version: 2, footfall_version: '1.4.2' },
    'BACKUP_FROM_NEWER_VERSION',
    /its layout \(format 2; this footfall reads format 1\)/,
  );
});

test('a malformed manifest, or one naming a file outside the backup, is refused', () => {
  assert.throws(
    () => parseManifest('{"format": "footfall-backup", ', CODE, '/b'),
    (e: unknown) => e instanceof BackupError && e.code === 'BACKUP_INVALID' && /not JSON/.test(e.message),
  );
  refused({ ...manifest(), format: 'something-else' }, 'BACKUP_INVALID', /not a footfall backup's manifest/);
  for (const p of ['../control.sqlite', '/etc/passwd', 'spool/../../x', 'a//b', 'a\\b', 'manifest.json', ''])
    refused(
      { ...manifest(), files: [{ path: p, bytes: 1, sha256: 'b'.repeat(64) }] },
      'BACKUP_INVALID',
      /outside the backup or of no name/,
    );
  refused({ ...manifest(), files: [{ path: 'x', bytes: 1, sha256: 'short' }] }, 'BACKUP_INVALID', /no size or sha256/);
  const twice = manifest();
  twice.files.push(twice.files[0]);
  refused(twice, 'BACKUP_INVALID', /twice/);
  refused({ ...manifest(), files: [] }, 'BACKUP_INVALID', /lists no files/);
  refused({ ...manifest(), counts: { control: { sites: -1 }, events: {}, spool_records: {} } }, 'BACKUP_INVALID', /counts/);
});

test('versions compare by their numbers; facts differ line by line', () => {
  assert.ok(compareVersions('0.10.0', '0.9.9') > 0);
  assert.ok(compareVersions('1.2.3', '1.2.10') < 0);
  assert.equal(compareVersions('1.2.3-rc.1', '1.2.3'), 0);
  assert.deepEqual(factDifferences(FACTS, FACTS), []);
  assert.deepEqual(factDifferences(FACTS, { ...FACTS, events: { schemaVersion: 3, counts: { events: 9 } }, spools: {} }), [
    'events table events: 10 expected, 9 found',
    'events table footfall_meta: 2 expected, none found',
    'spool abcdefgh12: 4 expected, none found',
  ]);
});
