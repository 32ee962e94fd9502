// `footfall backup --out DIR` (docs/decisions/backups.md): the stores' snapshot (taken by the running
// server through its admin socket, or here when none runs) written into a locked sibling of DIR, read
// back (every copy opened read-only and counted, and the events store's counts compared with those the
// store had under its commit lock), each file hashed and synced, manifest.json written last, and the
// sibling renamed to DIR. A run killed at any point leaves no DIR, or an empty one: never a directory
// that looks like a backup. The next run clears what it left.
import fs from 'node:fs';
import path from 'node:path';
import type { CodeVersions, SnapshotTaken, StoreFacts, TakeSnapshot } from '../../ports/backup.js';
import { BackupError } from './backup-error.js';
import { buildManifest, MANIFEST_FILE, type BackupManifest, type ManifestFile } from './manifest.js';
import { absentOrEmpty, dirsOf, hashFile, listFiles, openStaging, syncDir, type TakeLock } from './staging.js';

export interface BackupSourceOpened {
  via: 'server' | 'store';
  snapshot: TakeSnapshot;
  close(): Promise<void>;
}

export interface BackupDeps {
  /** the data dir backed up (its small files listed in `extraFiles` are copied from there) */
  dataDir: string;
  /** where the snapshot comes from; opened once the checks of --out have passed */
  open(): Promise<BackupSourceOpened>;
  /** what the copies hold, read from the files */
  inspect(dir: string): Promise<StoreFacts>;
  code: CodeVersions;
  lock: TakeLock;
  /** files of the data dir copied as they are when present (the demo's markers) */
  extraFiles?: readonly string[];
  now?: () => Date;
  /** passed at each step (crash tests stop the process at one) */
  step?: (point: string) => void;
}

export interface BackupDone {
  out: string;
  manifest: BackupManifest;
  bytes: number;
  seconds: number;
  /** how long the snapshot took: about how long the events store's commits waited */
  snapshotSeconds: number;
}

export async function writeBackup(deps: BackupDeps, outArg: string): Promise<BackupDone> {
  const started = performance.now();
  const step = deps.step ?? (() => undefined);
  const out = path.resolve(outArg);
  const free = await absentOrEmpty(out);
  if (!free.ok)
    throw new BackupError('OUT_NOT_EMPTY', `--out ${out} ${free.why}: name a new or empty directory (a backup never writes over files)`, {
      out,
    });
  const source = await deps.open();
  let taken: SnapshotTaken;
  const staging = await openStaging(out, 'partial', deps.lock).catch(async (err) => {
    await source.close();
    throw err;
  });
  try {
    step('backup-staging');
    const snapshotStarted = performance.now();
    try {
      taken = await source.snapshot(staging.dir);
    } finally {
      await source.close();
    }
    const snapshotSeconds = (performance.now() - snapshotStarted) / 1000;
    step('backup-snapshot');
    for (const name of deps.extraFiles ?? []) {
      await fs.promises
        .copyFile(path.join(deps.dataDir, name), path.join(staging.dir, name), fs.constants.COPYFILE_EXCL)
        .catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'ENOENT') throw err;
        });
    }
    const facts = await deps.inspect(staging.dir);
    const differ = snapshotDifferences(taken, facts);
    if (differ.length)
      throw new BackupError(
        'BACKUP_INCONSISTENT',
        `the copy does not hold what the store held when it was taken (${differ.join('; ')}); nothing was kept: run footfall backup again`,
        { differences: differ },
      );
    const files: ManifestFile[] = [];
    for (const rel of await listFiles(staging.dir)) {
      files.push({ path: rel, ...(await hashFile(path.join(staging.dir, rel), { sync: true })) });
      step('backup-hashed');
    }
    const manifest = buildManifest({ code: deps.code, createdAt: (deps.now ?? (() => new Date()))(), via: source.via, facts, files });
    await writeFileDurably(path.join(staging.dir, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n');
    for (const d of await dirsOf(staging.dir)) await syncDir(d);
    step('backup-manifest');
    await staging.finish().catch(async (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
      throw new BackupError(
        'OUT_NOT_EMPTY',
        `--out ${out} was filled by something else while the backup was written: name a new directory`,
        {
          out,
        },
      );
    });
    return {
      out,
      manifest,
      bytes: files.reduce((n, f) => n + f.bytes, 0),
      seconds: (performance.now() - started) / 1000,
      snapshotSeconds,
    };
  } catch (err) {
    await staging.discard().catch(() => undefined);
    throw err;
  }
}

/** The events store's rows and the spools' records as the store counted them under its lock, against the copies. */
function snapshotDifferences(taken: SnapshotTaken, facts: StoreFacts): string[] {
  const out: string[] = [];
  for (const t of [...new Set([...Object.keys(taken.events), ...Object.keys(facts.events.counts)])].sort())
    if (taken.events[t] !== facts.events.counts[t])
      out.push(`events table ${t}: ${taken.events[t]} rows in the store, ${facts.events.counts[t]} in the copy`);
  for (const id of [...new Set([...Object.keys(taken.spools), ...Object.keys(facts.spools)])].sort())
    if (taken.spools[id]?.records !== facts.spools[id])
      out.push(`spool ${id}: ${taken.spools[id]?.records} records copied, ${facts.spools[id]} found past the copy's checkpoint`);
  return out;
}

/** Writes a file under a temporary name, syncs it and renames it into place: it is there whole or not at all. */
async function writeFileDurably(file: string, text: string): Promise<void> {
  const tmp = `${file}.tmp`;
  const fh = await fs.promises.open(tmp, 'wx', 0o600);
  try {
    await fh.writeFile(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fs.promises.rename(tmp, file);
}
