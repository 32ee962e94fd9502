// The UsageLedger suite against a live PostgreSQL (FOOTFALL_TEST_POSTGRES_URL), one scratch schema per test.
import { openPostgresControlPlane } from '../../src/control/postgres/open.js';
import { runUsageLedgerContract } from './usage-ledger.contract.js';
import { POSTGRES_SKIP, POSTGRES_URL, scratchSchema } from './fixtures/postgres-scratch.js';

{
  // without the service every test below is listed as skipped, with the reason (in CI: the file fails)
  const url = POSTGRES_URL as string;
  runUsageLedgerContract(
    'postgres',
    async (opts) => {
      const scratch = scratchSchema(url);
      const cp = await openPostgresControlPlane(url, { ...opts, schema: scratch.schema });
      return {
        ledger: cp.ledger,
        close: async () => {
          await cp.close();
          await scratch.drop();
        },
      };
    },
    { skip: POSTGRES_SKIP },
  );
}
