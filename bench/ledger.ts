// The usage ledger's request-path cost on the embedded control plane (SQLite file): a metered miss
// (reserve, which takes a lease, then commit) next to a cache hit (charge: one conditional
// statement, no lease) measured in the same run. `npm run bench -- ledger`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqliteControlPlane } from '../src/control/sqlite/open.js';
import type { BenchRow } from './run.js';

export const name = 'ledger';
const N = Number(process.env.BENCH_LEDGER_N ?? 20_000);

export async function run(): Promise<BenchRow[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-bench-ledger-'));
  const cp = await openSqliteControlPlane(path.join(dir, 'control.sqlite'));
  const terms = { workspaceId: 'ws_bench', period: '2025-01', units: 1, included: 0, hardCap: 1e12 };
  const time = async (step: () => Promise<unknown>): Promise<number> => {
    for (let i = 0; i < 1000; i++) await step(); // warm the statement caches
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < N; i++) await step();
    return Number(process.hrtime.bigint() - t0) / 1e3 / N;
  };
  try {
    const rows: BenchRow[] = [];
    // Alternate the two twice so a noisy neighbour moves both.
    for (let round = 1; round <= 2; round++) {
      const miss = await time(async () => cp.ledger.commit((await cp.ledger.reserve(terms))!));
      const hit = await time(() => cp.ledger.charge(terms));
      rows.push({
        bench: name,
        case: `reserve+commit (lease), round ${round}`,
        us_per_op: miss.toFixed(1),
        peer_charge_us: hit.toFixed(1),
      });
    }
    return rows;
  } finally {
    await cp.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
