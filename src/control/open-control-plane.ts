// Picks the control plane the configuration names: SQLite in the data dir, or PostgreSQL at controlUrl.
import fs from 'node:fs';
import path from 'node:path';
import type { Clock } from '../domain/clock.js';
import type { RandomBytes } from '../domain/tokens.js';
import { openSqliteControlPlane, type ControlPlane } from './sqlite/open.js';
import { openPostgresControlPlane } from './postgres/open.js';
import { LEASE_MARGIN_MS } from './usage-ledger.js';

export const CONTROL_SQLITE_FILE = 'control.sqlite';

/** A reservation outlives the longest metered run (bounded by the query timeout) by LEASE_MARGIN_MS. */
export function leaseMsFor(config: { queryTimeoutMs?: number }): number {
  return (config.queryTimeoutMs ?? 10_000) + LEASE_MARGIN_MS;
}

export async function openControlPlane(
  config: { dataDir: string; controlUrl?: string; queryTimeoutMs?: number },
  opts: { clock?: Clock; random?: RandomBytes } = {},
): Promise<ControlPlane> {
  const leaseMs = leaseMsFor(config);
  if (config.controlUrl !== undefined) return openPostgresControlPlane(config.controlUrl, { ...opts, leaseMs });
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  return openSqliteControlPlane(path.join(config.dataDir, CONTROL_SQLITE_FILE), { ...opts, leaseMs });
}
