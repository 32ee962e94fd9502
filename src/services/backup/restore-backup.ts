// `footfall restore --from DIR --data-dir NEW` (docs/decisions/backups.md): into an absent or empty
// NEW only. Everything is checked before anything is written: the manifest (a backup of newer code is
// refused), then the size and sha256 of every file it lists. The files are then copied into a locked
// sibling of NEW (hashed again as they are written, and synced), the copies opened read-only and
// counted against the manifest, and the sibling renamed to NEW. A run killed at any point leaves NEW
// as it was (absent or empty); the next run clears the sibling and does it all again.
import fs from 'node:fs';
import path from 'node:path';
import type { CodeVersions, StoreFacts } from '../../ports/backup.js';
import { BackupError } from './backup-error.js';
import { factDifferences, factsOf, MANIFEST_FILE, parseManifest, type BackupManifest } from './manifest.js';
import { absentOrEmpty, copyHashed, dirsOf, hashFile, isStaging, openStaging, syncDir, type TakeLock } from './staging.js';

export interface RestoreDeps {
  inspect(dir: string): Promise<StoreFacts>;
  code: CodeVersions;
  lock: TakeLock;
  step?: (point: string) => void;
}

export interface RestoreDone {
  from: string;
  dataDir: string;
  manifest: BackupManifest;
  bytes: number;
  seconds: number;
}

export async function restoreBackup(deps: RestoreDeps, opts: { from: string; dataDir: string }): Promise<RestoreDone> {
  const started = performance.now();
  const step = deps.step ?? (() => undefined);
  const from = path.resolve(opts.from);
  const target = path.resolve(opts.dataDir);
  const free = await absentOrEmpty(target);
  if (!free.ok)
    throw new BackupError(
      'TARGET_NOT_EMPTY',
      `--data-dir ${target} ${free.why}: restore into a new or empty directory (a restore never writes over a data dir), then point footfall at it`,
      { data_dir: target },
    );
  const manifest = await readManifest(from, deps.code);
  await verifyFiles(from, manifest);

  const staging = await openStaging(target, 'restoring', deps.lock);
  try {
    for (const f of manifest.files) {
      const copied = await copyHashed(path.join(from, f.path), path.join(staging.dir, f.path));
      if (copied.sha256 !== f.sha256 || copied.bytes !== f.bytes)
        throw corrupt(from, [`${f.path} changed while it was being restored`], [{ file: f.path }]);
      step('restore-file');
    }
    const differ = factDifferences(factsOf(manifest), await deps.inspect(staging.dir));
    if (differ.length)
      throw corrupt(
        from,
        differ.map((d) => `the restored stores do not hold what the manifest says (${d})`),
        differ.map((d) => ({ store: d })),
      );
    for (const d of await dirsOf(staging.dir)) await syncDir(d);
    step('restore-verified');
    await staging.finish().catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
      throw new BackupError(
        'TARGET_NOT_EMPTY',
        `--data-dir ${target} was filled by something else while the backup was restored (a server started there?): stop it and restore into a new directory`,
        { data_dir: target },
      );
    });
  } catch (err) {
    await staging.discard().catch(() => undefined);
    throw err;
  }
  return {
    from,
    dataDir: target,
    manifest,
    bytes: manifest.files.reduce((n, f) => n + f.bytes, 0),
    seconds: (performance.now() - started) / 1000,
  };
}

/** The manifest of the backup in `from`, checked (refusing a directory that is not a whole backup). */
async function readManifest(from: string, code: CodeVersions): Promise<BackupManifest> {
  const st = await fs.promises.stat(from).catch(() => null);
  if (!st?.isDirectory())
    throw new BackupError('BACKUP_NOT_FOUND', `--from ${from} is not a directory: name the directory footfall backup --out wrote`);
  if (isStaging(from))
    throw new BackupError(
      'BACKUP_INCOMPLETE',
      `${from} is a backup still being written, or one a stopped backup left half-way: it is not a backup. Restore from a whole one, or run footfall backup again`,
    );
  const text = await fs.promises.readFile(path.join(from, MANIFEST_FILE), 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT')
      throw new BackupError(
        'BACKUP_INCOMPLETE',
        `${from} holds no ${MANIFEST_FILE}: it is not a whole backup (a backup gets it last, once every file is written). Restore from a whole one, or run footfall backup again`,
      );
    throw err;
  });
  return parseManifest(text, code, from);
}

/** Every file the manifest lists is there, of its size and sha256; BACKUP_CORRUPT names each one that is not. */
async function verifyFiles(from: string, manifest: BackupManifest): Promise<void> {
  const problems: string[] = [];
  const details: Record<string, unknown>[] = [];
  for (const f of manifest.files) {
    const file = path.join(from, f.path);
    const st = await fs.promises.lstat(file).catch(() => null);
    if (!st?.isFile()) {
      problems.push(`${f.path} is missing`);
      details.push({ file: f.path, missing: true });
      continue;
    }
    if (st.size !== f.bytes) {
      problems.push(`${f.path} has ${st.size} bytes, not ${f.bytes}`);
      details.push({ file: f.path, expected_bytes: f.bytes, found_bytes: st.size });
      continue;
    }
    const { sha256 } = await hashFile(file);
    if (sha256 !== f.sha256) {
      problems.push(`${f.path} does not match its sha256`);
      details.push({ file: f.path, expected_sha256: f.sha256, found_sha256: sha256 });
    }
  }
  if (problems.length) throw corrupt(from, problems, details);
}

function corrupt(from: string, problems: string[], details: Record<string, unknown>[]): BackupError {
  return new BackupError(
    'BACKUP_CORRUPT',
    `the backup in ${from} does not match its manifest (${problems.join('; ')}): it is damaged. Restore from another backup; nothing was written`,
    { problems: details },
  );
}
