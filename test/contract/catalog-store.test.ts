// The CatalogStore suite against SQLite, in memory and on a file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FakeClock } from '../../src/domain/clock.js';
import { openSqliteControlPlane } from '../../src/control/sqlite/open.js';
import { runCatalogStoreContract, type CatalogUnderTest } from './catalog-store.contract.js';
import { runCatalogManagementContract } from './catalog-management.contract.js';
import { runCatalogFunnelsContract } from './catalog-funnels.contract.js';
import { runCatalogTokenNamesContract } from './catalog-token-names.contract.js';
import { runSiteOwnershipContract } from './site-ownership.contract.js';
import { runReportStoreContract } from './report-store.contract.js';

const memory = async (clock: FakeClock): Promise<CatalogUnderTest> => {
  const cp = await openSqliteControlPlane(':memory:', { clock });
  return { catalog: cp.catalog, close: cp.close };
};
runCatalogStoreContract('sqlite :memory:', memory);
runCatalogManagementContract('sqlite :memory:', memory);
runCatalogFunnelsContract('sqlite :memory:', memory);
runCatalogTokenNamesContract('sqlite :memory:', memory);
runSiteOwnershipContract('sqlite :memory:', memory);
runReportStoreContract('sqlite :memory:', async (clock) => {
  const cp = await openSqliteControlPlane(':memory:', { clock });
  return { catalog: cp.catalog, reports: cp.reports, lifecycle: cp.lifecycle, close: cp.close };
});

const file = async (clock: FakeClock): Promise<CatalogUnderTest> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-catalog-'));
  const cp = await openSqliteControlPlane(path.join(dir, 'control.sqlite'), { clock });
  return {
    catalog: cp.catalog,
    close: async () => {
      await cp.catalog.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
};
runCatalogStoreContract('sqlite file', file);
runCatalogManagementContract('sqlite file', file);
runSiteOwnershipContract('sqlite file', file);
