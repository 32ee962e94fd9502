// The PeopleStore suite against SQLite, in memory and on a file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FakeClock } from '../../src/domain/clock.js';
import { openSqliteControlPlane } from '../../src/control/sqlite/open.js';
import { runPeopleStoreContract, type PeopleUnderTest } from './people-store.contract.js';
import { runPeopleTwoFactorContract } from './people-two-factor.contract.js';

const memory = async (clock: FakeClock): Promise<PeopleUnderTest> => {
  const cp = await openSqliteControlPlane(':memory:', { clock });
  return { people: cp.people, catalog: cp.catalog, close: cp.close };
};
runPeopleStoreContract('sqlite :memory:', memory);
runPeopleTwoFactorContract('sqlite :memory:', memory);

const file = async (clock: FakeClock): Promise<PeopleUnderTest> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-people-'));
  const cp = await openSqliteControlPlane(path.join(dir, 'control.sqlite'), { clock });
  return {
    people: cp.people,
    catalog: cp.catalog,
    close: async () => {
      await cp.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
};
runPeopleStoreContract('sqlite file', file);
runPeopleTwoFactorContract('sqlite file', file);
