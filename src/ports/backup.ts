// What a backup of a data dir is made of (docs/decisions/backups.md): a consistent snapshot of the
// embedded stores written into a directory, and what those copies hold, read back from the copies
// themselves (the manifest records it; a restore reads the restored files again and compares).

/** What the running store wrote under its commit lock, as the store saw it then. */
export interface SnapshotTaken {
  /** rows per table of the events store at the snapshot (read under the lock, before the copy) */
  events: Record<string, number>;
  /** per spool id: its loader's checkpoint then (null: nothing loaded yet) and the records past it copied */
  spools: Record<string, SpoolCopied>;
}

export interface SpoolCopied {
  checkpoint: number | null;
  records: number;
}

/** Writes the data dir's stores into `dir` (an empty directory), consistent with each other. */
export type TakeSnapshot = (dir: string) => Promise<SnapshotTaken>;

/** What the copies in a directory hold, read from the files (opened read-only: nothing is written). */
export interface StoreFacts {
  control: {
    /** the control plane's migrations applied, by name */
    migrations: string[];
    /** rows per table */
    counts: Record<string, number>;
  };
  events: {
    /** footfall_meta's schema_version (null: none recorded) */
    schemaVersion: number | null;
    counts: Record<string, number>;
  };
  /** per spool id: records a server on this dir will load (those past the loader's checkpoint in the events store) */
  spools: Record<string, number>;
}

/** What this code can read: a backup made by newer code is refused (its version or a schema is past these). */
export interface CodeVersions {
  /** package.json's version */
  version: string;
  controlMigrations: readonly string[];
  eventsSchemaVersion: number;
}
