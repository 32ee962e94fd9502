// The release this code is, and the refusal of stores a newer release wrote (docs/decisions/upgrades.md).
// Each store records its layout: the control plane the names of the migrations it ran, DuckDB and
// ClickHouse a schema_version. A store this code would read wrong is refused before anything is
// written to it, saying what to do.

/** package.json's version (test/unit/release.test.ts keeps them equal); CHANGELOG.md says what each release changes in the data. */
export const FOOTFALL_VERSION = '0.2.0';

export class DataNewerThanCodeError extends Error {
  readonly code = 'DATA_NEWER_THAN_CODE';
  /**
   * `what`: the store, named so the operator can find it (a file, a schema, a database and server);
   * `detail`: what it records that this code does not know.
   */
  constructor(what: string, detail: string) {
    super(
      `${what} was written by a newer footfall than this one (${FOOTFALL_VERSION}): ${detail}. Nothing was changed. ` +
        `Run the footfall release that wrote it (or a later one), or restore a backup made by footfall ${FOOTFALL_VERSION} or earlier ` +
        `(CHANGELOG.md says what each release changes in the data).`,
    );
    this.name = 'DataNewerThanCodeError';
  }
}
