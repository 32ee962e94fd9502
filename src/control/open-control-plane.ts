// Picks the control plane the configuration names: SQLite in the data dir, or (later) PostgreSQL.
import fs from 'node:fs';
import path from 'node:path';
import type { Clock } from '../domain/clock.js';
import type { RandomBytes } from '../domain/tokens.js';
import { openSqliteControlPlane, type ControlPlane } from './sqlite/open.js';

export const CONTROL_SQLITE_FILE = 'control.sqlite';

export class ControlPlaneUnsupportedError extends Error {
  readonly code = 'NOT_SUPPORTED';
  constructor(message: string) {
    super(message);
    this.name = 'ControlPlaneUnsupportedError';
  }
}

export async function openControlPlane(
  config: { dataDir: string; controlUrl?: string },
  opts: { clock?: Clock; random?: RandomBytes } = {},
): Promise<ControlPlane> {
  if (config.controlUrl !== undefined)
    throw new ControlPlaneUnsupportedError(
      'a PostgreSQL control plane (FOOTFALL_CONTROL_URL / --control-url) is not supported yet; unset it to use SQLite in the data dir',
    );
  fs.mkdirSync(config.dataDir, { recursive: true });
  return openSqliteControlPlane(path.join(config.dataDir, CONTROL_SQLITE_FILE), opts);
}
