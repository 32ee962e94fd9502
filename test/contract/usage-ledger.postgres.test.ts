// The UsageLedger suite against a live PostgreSQL (FOOTFALL_TEST_POSTGRES_URL), one scratch schema per test.
import { test } from 'node:test';
import { openPostgresControlPlane } from '../../src/control/postgres/open.js';
import { runUsageLedgerContract } from './usage-ledger.contract.js';
import { POSTGRES_SKIP, POSTGRES_URL, scratchSchema } from './fixtures/postgres-scratch.js';

const url = POSTGRES_URL;
if (url === undefined) {
  test('postgres usage-ledger contract', { skip: POSTGRES_SKIP }, () => {});
} else {
  runUsageLedgerContract('postgres', async (opts) => {
    const scratch = scratchSchema(url);
    const cp = await openPostgresControlPlane(url, { ...opts, schema: scratch.schema });
    return {
      ledger: cp.ledger,
      close: async () => {
        await cp.close();
        await scratch.drop();
      },
    };
  });
}
