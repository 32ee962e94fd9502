// Picks the control plane the configuration names: SQLite in the data dir, or PostgreSQL at controlUrl.
// Each is loaded only when picked (pg not for SQLite), and neither by a command that opens no store:
// Kysely and pg are a good part of a command's start-up.
import fs from 'node:fs';
import path from 'node:path';
import type { Clock } from '../domain/clock.js';
import type { RandomBytes } from '../domain/tokens.js';
import type { ControlPlane } from './sqlite/open.js';

export const CONTROL_SQLITE_FILE = 'control.sqlite';

export async function openControlPlane(
  config: { dataDir: string; controlUrl?: string; queryTimeoutMs?: number },
  opts: { clock?: Clock; random?: RandomBytes } = {},
): Promise<ControlPlane> {
  const leaseMs = (await import('./usage-ledger.js')).leaseMsFor(config);
  if (config.controlUrl !== undefined) {
    const { openPostgresControlPlane } = await import('./postgres/open.js');
    return openPostgresControlPlane(config.controlUrl, { ...opts, leaseMs });
  }
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const { openSqliteControlPlane } = await import('./sqlite/open.js');
  return openSqliteControlPlane(path.join(config.dataDir, CONTROL_SQLITE_FILE), { ...opts, leaseMs });
}
