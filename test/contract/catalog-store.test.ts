// The CatalogStore suite against SQLite, in memory and on a file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqliteControlPlane } from '../../src/control/sqlite/open.js';
import { runCatalogStoreContract } from './catalog-store.contract.js';

runCatalogStoreContract('sqlite :memory:', async (clock) => {
  const cp = await openSqliteControlPlane(':memory:', { clock });
  return { catalog: cp.catalog, close: cp.close };
});

runCatalogStoreContract('sqlite file', async (clock) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-catalog-'));
  const cp = await openSqliteControlPlane(path.join(dir, 'control.sqlite'), { clock });
  return {
    catalog: cp.catalog,
    close: async () => {
      await cp.catalog.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});
