// The CatalogStore suite against a live PostgreSQL (FOOTFALL_TEST_POSTGRES_URL), one scratch schema per test.
import { test } from 'node:test';
import type { FakeClock } from '../../src/domain/clock.js';
import { openPostgresControlPlane } from '../../src/control/postgres/open.js';
import { runCatalogStoreContract, type CatalogUnderTest } from './catalog-store.contract.js';
import { runCatalogManagementContract } from './catalog-management.contract.js';
import { runSiteOwnershipContract } from './site-ownership.contract.js';
import { POSTGRES_SKIP, POSTGRES_URL, scratchSchema } from './fixtures/postgres-scratch.js';

const url = POSTGRES_URL;
if (url === undefined) {
  test('postgres catalog contract', { skip: POSTGRES_SKIP }, () => {});
  test('postgres catalog management contract', { skip: POSTGRES_SKIP }, () => {});
  test('postgres site ownership contract', { skip: POSTGRES_SKIP }, () => {});
} else {
  const factory = async (clock: FakeClock): Promise<CatalogUnderTest> => {
    const scratch = scratchSchema(url);
    const cp = await openPostgresControlPlane(url, { clock, schema: scratch.schema });
    return {
      catalog: cp.catalog,
      close: async () => {
        await cp.catalog.close();
        await scratch.drop();
      },
    };
  };
  runCatalogStoreContract('postgres', factory);
  runCatalogManagementContract('postgres', factory);
  runSiteOwnershipContract('postgres', factory);
}
