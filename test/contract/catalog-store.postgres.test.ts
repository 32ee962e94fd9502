// The CatalogStore suite against a live PostgreSQL (FOOTFALL_TEST_POSTGRES_URL), one scratch schema per test.
import type { FakeClock } from '../../src/domain/clock.js';
import { openPostgresControlPlane } from '../../src/control/postgres/open.js';
import { runCatalogStoreContract, type CatalogUnderTest } from './catalog-store.contract.js';
import { runCatalogManagementContract } from './catalog-management.contract.js';
import { runCatalogFunnelsContract } from './catalog-funnels.contract.js';
import { runCatalogTokenNamesContract } from './catalog-token-names.contract.js';
import { runSiteOwnershipContract } from './site-ownership.contract.js';
import { runReportStoreContract } from './report-store.contract.js';
import { POSTGRES_SKIP, POSTGRES_URL, scratchSchema } from './fixtures/postgres-scratch.js';

{
  // without the service every test below is listed as skipped, with the reason (in CI: the file fails)
  const url = POSTGRES_URL as string;
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
  runCatalogStoreContract('postgres', factory, { skip: POSTGRES_SKIP });
  runCatalogManagementContract('postgres', factory, { skip: POSTGRES_SKIP });
  runCatalogFunnelsContract('postgres', factory, { skip: POSTGRES_SKIP });
  runCatalogTokenNamesContract('postgres', factory, { skip: POSTGRES_SKIP });
  runSiteOwnershipContract('postgres', factory, { skip: POSTGRES_SKIP });
  runReportStoreContract(
    'postgres',
    async (clock) => {
      const scratch = scratchSchema(url);
      const cp = await openPostgresControlPlane(url, { clock, schema: scratch.schema });
      return {
        catalog: cp.catalog,
        reports: cp.reports,
        lifecycle: cp.lifecycle,
        close: async () => {
          await cp.close();
          await scratch.drop();
        },
      };
    },
    { skip: POSTGRES_SKIP },
  );
}
