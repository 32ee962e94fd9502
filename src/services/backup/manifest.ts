// manifest.json, the last file of a backup (docs/decisions/backups.md): what made it (footfall's version,
// the control plane's migrations, the events store's schema version), what its stores hold (rows per
// table, the spooled records still to load), and the size and sha256 of every other file. A directory
// without it is not a backup; a restore checks every line of it before it writes anything.
import type { CodeVersions, StoreFacts } from '../../ports/backup.js';
import { BackupError } from './backup-error.js';

export const MANIFEST_FILE = 'manifest.json';
export const BACKUP_FORMAT = 'footfall-backup';
/** The layout of this manifest and of the directory it describes; a later layout is refused as newer. */
export const BACKUP_FORMAT_VERSION = 1;

export interface ManifestFile {
  /** relative to the backup's directory, `/`-separated */
  path: string;
  bytes: number;
  sha256: string;
}

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  format_version: number;
  footfall_version: string;
  created_at: string;
  /** `server`: the running server wrote the snapshot; `store`: the command did, no server running */
  taken_via: 'server' | 'store';
  schema: { control_migrations: string[]; events_schema_version: number | null };
  counts: {
    /** rows per table of the control plane */
    control: Record<string, number>;
    /** rows per table of the events store */
    events: Record<string, number>;
    /** per spool: records acknowledged and not yet loaded, which a server on the restored dir loads once */
    spool_records: Record<string, number>;
  };
  files: ManifestFile[];
}

export function buildManifest(input: {
  code: CodeVersions;
  createdAt: Date;
  via: 'server' | 'store';
  facts: StoreFacts;
  files: ManifestFile[];
}): BackupManifest {
  const { facts } = input;
  return {
    format: BACKUP_FORMAT,
    format_version: BACKUP_FORMAT_VERSION,
    footfall_version: input.code.version,
    created_at: input.createdAt.toISOString(),
    taken_via: input.via,
    schema: { control_migrations: [...facts.control.migrations], events_schema_version: facts.events.schemaVersion },
    counts: { control: facts.control.counts, events: facts.events.counts, spool_records: facts.spools },
    files: input.files,
  };
}

/** The facts a manifest records, in the shape a restore reads back from the restored files. */
export function factsOf(m: BackupManifest): StoreFacts {
  return {
    control: { migrations: m.schema.control_migrations, counts: m.counts.control },
    events: { schemaVersion: m.schema.events_schema_version, counts: m.counts.events },
    spools: m.counts.spool_records,
  };
}

/** Where two sets of facts differ, one line each (none: the same). */
export function factDifferences(expected: StoreFacts, found: StoreFacts): string[] {
  const out: string[] = [];
  const counts = (what: string, a: Record<string, number>, b: Record<string, number>) => {
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort())
      if (a[k] !== b[k]) out.push(`${what} ${k}: ${a[k] ?? 'none'} expected, ${b[k] ?? 'none'} found`);
  };
  if ([...expected.control.migrations].sort().join() !== [...found.control.migrations].sort().join())
    out.push(`control-plane migrations: ${expected.control.migrations.join(', ')} expected, ${found.control.migrations.join(', ')} found`);
  if (expected.events.schemaVersion !== found.events.schemaVersion)
    out.push(`events schema version: ${expected.events.schemaVersion} expected, ${found.events.schemaVersion} found`);
  counts('control-plane table', expected.control.counts, found.control.counts);
  counts('events table', expected.events.counts, found.events.counts);
  counts('spool', expected.spools, found.spools);
  return out;
}

/**
 * Reads manifest.json's text: a later format, footfall version or schema than this code's is refused
 * (BACKUP_FROM_NEWER_VERSION), anything else malformed is BACKUP_INVALID. `where` names the backup in messages.
 */
export function parseManifest(text: string, code: CodeVersions, where: string): BackupManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw invalid(where, 'it is not JSON');
  }
  const m = raw as Record<string, unknown>;
  if (!isObject(m) || m.format !== BACKUP_FORMAT)
    throw invalid(where, `it is not a footfall backup's manifest (no "format": "${BACKUP_FORMAT}")`);
  if (!Number.isSafeInteger(m.format_version) || (m.format_version as number) < 1)
    throw invalid(where, 'its format_version is not a positive integer');
  if (typeof m.footfall_version !== 'string' || !VERSION.test(m.footfall_version))
    throw invalid(where, 'its footfall_version is not a version');
  const by = m.footfall_version;
  if ((m.format_version as number) > BACKUP_FORMAT_VERSION)
    throw newer(where, by, code, [`its layout (format ${m.format_version}; this footfall reads format ${BACKUP_FORMAT_VERSION})`]);
  const schema = m.schema as BackupManifest['schema'];
  if (!isObject(schema) || !isStringList(schema.control_migrations))
    throw invalid(where, 'its schema.control_migrations is not a list of names');
  if (schema.events_schema_version !== null && !Number.isSafeInteger(schema.events_schema_version))
    throw invalid(where, 'its schema.events_schema_version is not an integer');
  const past: string[] = [];
  if (compareVersions(by, code.version) > 0) past.push(`its version (this is footfall ${code.version})`);
  const unknown = schema.control_migrations.filter((n) => !code.controlMigrations.includes(n));
  if (unknown.length) past.push(`its control-plane migrations ${unknown.join(', ')}, which this footfall does not have`);
  if (schema.events_schema_version !== null && schema.events_schema_version > code.eventsSchemaVersion)
    past.push(`its events schema version ${schema.events_schema_version} (this footfall's is ${code.eventsSchemaVersion})`);
  if (past.length) throw newer(where, by, code, past);

  if (typeof m.created_at !== 'string' || Number.isNaN(Date.parse(m.created_at))) throw invalid(where, 'its created_at is not an instant');
  if (m.taken_via !== 'server' && m.taken_via !== 'store') throw invalid(where, 'its taken_via is neither "server" nor "store"');
  const counts = m.counts as BackupManifest['counts'];
  if (!isObject(counts) || !isCounts(counts.control) || !isCounts(counts.events) || !isCounts(counts.spool_records))
    throw invalid(where, 'its counts are not rows per table');
  if (!Array.isArray(m.files) || m.files.length === 0) throw invalid(where, 'it lists no files');
  const seen = new Set<string>();
  for (const f of m.files as unknown[]) {
    const file = f as ManifestFile;
    if (!isObject(file) || typeof file.path !== 'string' || !safePath(file.path) || file.path === MANIFEST_FILE)
      throw invalid(where, `it lists a file outside the backup or of no name (${JSON.stringify(isObject(file) ? file.path : file)})`);
    if (!Number.isSafeInteger(file.bytes) || file.bytes < 0 || typeof file.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(file.sha256))
      throw invalid(where, `its line of ${file.path} has no size or sha256`);
    if (seen.has(file.path)) throw invalid(where, `it lists ${file.path} twice`);
    seen.add(file.path);
  }
  return m as unknown as BackupManifest;
}

const VERSION = /^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?$/;

/** Compares two versions x.y.z by their numbers (a pre-release or build suffix is left out): <0, 0, >0. */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.split(/[-+]/)[0].split('.').map(Number);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}

/** A relative path inside the backup: no absolute path, no `..`, no empty or `.` segment, no backslash. */
function safePath(p: string): boolean {
  if (p === '' || p.startsWith('/') || p.includes('\\') || p.includes('\0')) return false;
  return p.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
}

function invalid(where: string, why: string): BackupError {
  return new BackupError(
    'BACKUP_INVALID',
    `${where} has a manifest.json footfall cannot read: ${why}. Restore from another backup, or make a new one with footfall backup`,
  );
}

function newer(where: string, by: string, code: CodeVersions, past: string[]): BackupError {
  return new BackupError(
    'BACKUP_FROM_NEWER_VERSION',
    `${where} was made by footfall ${by}, newer than this footfall ${code.version} by ${past.join('; ')}. ` +
      `Restore it with footfall ${by} or later (upgrade footfall, then run restore again); nothing was written`,
    { backup_version: by, footfall_version: code.version },
  );
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isCounts = (v: unknown): v is Record<string, number> =>
  isObject(v) && Object.values(v).every((n) => Number.isSafeInteger(n) && (n as number) >= 0);
