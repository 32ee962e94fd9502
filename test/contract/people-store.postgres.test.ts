// The PeopleStore suite against a live PostgreSQL (FOOTFALL_TEST_POSTGRES_URL), one scratch schema per test.
import type { FakeClock } from '../../src/domain/clock.js';
import { openPostgresControlPlane } from '../../src/control/postgres/open.js';
import { runPeopleStoreContract, type PeopleUnderTest } from './people-store.contract.js';
import { runPeopleTwoFactorContract } from './people-two-factor.contract.js';
import { POSTGRES_SKIP, POSTGRES_URL, scratchSchema } from './fixtures/postgres-scratch.js';

{
  // without the service every test below is listed as skipped, with the reason (in CI: the file fails)
  const url = POSTGRES_URL as string;
  const factory = async (clock: FakeClock): Promise<PeopleUnderTest> => {
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
  };
  runPeopleStoreContract('postgres', factory, { skip: POSTGRES_SKIP });
  runPeopleTwoFactorContract('postgres', factory, { skip: POSTGRES_SKIP });
}
