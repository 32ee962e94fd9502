// The PeopleStore suite against a live PostgreSQL (FOOTFALL_TEST_POSTGRES_URL), one scratch schema per test.
import { test } from 'node:test';
import type { FakeClock } from '../../src/domain/clock.js';
import { openPostgresControlPlane } from '../../src/control/postgres/open.js';
import { runPeopleStoreContract, type PeopleUnderTest } from './people-store.contract.js';
import { POSTGRES_SKIP, POSTGRES_URL, scratchSchema } from './fixtures/postgres-scratch.js';

const url = POSTGRES_URL;
if (url === undefined) {
  test('postgres people contract', { skip: POSTGRES_SKIP }, () => {});
} else {
  runPeopleStoreContract('postgres', async (clock: FakeClock): Promise<PeopleUnderTest> => {
    const scratch = scratchSchema(url);
    const cp = await openPostgresControlPlane(url, { clock, schema: scratch.schema });
    return {
      people: cp.people,
      catalog: cp.catalog,
      close: async () => {
        await cp.close();
        await scratch.drop();
      },
    };
  });
}
