// Picks the control plane the configuration names: SQLite in the data dir, or PostgreSQL at controlUrl.
import fs from 'node:fs';
import path from 'node:path';
import type { Clock } from '../domain/clock.js';
import type { RandomBytes } from '../domain/tokens.js';
import { openSqliteControlPlane, type ControlPlane } from './sqlite/open.js';
import { openPostgresControlPlane } from './postgres/open.js';

export const CONTROL_SQLITE_FILE = 'control.sqlite';

export async function openControlPlane(
  config: { dataDir: string; controlUrl?: string },
  opts: { clock?: Clock; random?: RandomBytes } = {},
): Promise<ControlPlane> {
  if (config.controlUrl !== undefined) return openPostgresControlPlane(config.controlUrl, opts);
  fs.mkdirSync(config.dataDir, { recursive: true });
  return openSqliteControlPlane(path.join(config.dataDir, CONTROL_SQLITE_FILE), opts);
}
