// Options every command shares: where the stores are, and --json.
import type { Command } from 'commander';
import { loadConfig, type Config } from '../config/config.js';

export interface StoreOptions {
  dataDir?: string;
  controlUrl?: string;
  eventsUrl?: string;
  redisUrl?: string;
  logLevel?: string;
  json?: boolean;
}

export function withStoreOptions(cmd: Command): Command {
  return cmd
    .option('--data-dir <dir>', 'data directory (FOOTFALL_DATA_DIR, default ./data)')
    .option('--control-url <url>', 'control plane URL, postgres://… (FOOTFALL_CONTROL_URL, default SQLite in the data dir)')
    .option('--events-url <url>', 'events store URL, clickhouse+http://… (FOOTFALL_EVENTS_URL, default DuckDB in the data dir)')
    .option('--redis-url <url>', 'rate-limit store, redis://… (FOOTFALL_REDIS_URL, default in process)')
    .option('--json', 'print one JSON object on stdout and nothing else');
}

export function configFrom(opts: StoreOptions & Partial<Record<keyof Config, string>>): Readonly<Config> {
  return loadConfig({
    host: opts.host,
    port: opts.port,
    dataDir: opts.dataDir,
    controlUrl: opts.controlUrl,
    eventsUrl: opts.eventsUrl,
    redisUrl: opts.redisUrl,
    logLevel: opts.logLevel,
    queryTimeoutMs: opts.queryTimeoutMs,
    geoipDb: opts.geoipDb,
  });
}
