// Options every command shares: where the stores are, and --json.
import type { Command } from 'commander';
import { loadConfig, type Config } from '../config/config.js';

export interface StoreOptions {
  dataDir?: string;
  controlUrl?: string;
  eventsUrl?: string;
  redisUrl?: string;
  logLevel?: string;
  duckdbMemoryLimit?: string;
  duckdbTempDir?: string;
  duckdbTempLimit?: string;
  duckdbThreads?: string;
  queryTimeoutMs?: string;
  json?: boolean;
}

export function withStoreOptions(cmd: Command): Command {
  return cmd
    .option('--data-dir <dir>', 'data directory (FOOTFALL_DATA_DIR, default ./data)')
    .option('--control-url <url>', 'control plane URL, postgres://… (FOOTFALL_CONTROL_URL, default SQLite in the data dir)')
    .option('--events-url <url>', 'events store URL, clickhouse+http://… (FOOTFALL_EVENTS_URL, default DuckDB in the data dir)')
    .option('--redis-url <url>', 'rate-limit store, redis://… (FOOTFALL_REDIS_URL, default in process)')
    .option('--duckdb-memory-limit <size>', 'embedded store memory limit, e.g. 1GB (FOOTFALL_DUCKDB_MEMORY_LIMIT, default 512MB)')
    .option('--duckdb-temp-dir <dir>', 'embedded store temp directory (FOOTFALL_DUCKDB_TEMP_DIR, default beside events.duckdb)')
    .option('--duckdb-temp-limit <size>', 'cap of that temp directory, e.g. 20GB (FOOTFALL_DUCKDB_TEMP_LIMIT, default half the free disk)')
    .option('--duckdb-threads <n>', 'embedded store threads (FOOTFALL_DUCKDB_THREADS, default every core)')
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
    duckdbMemoryLimit: opts.duckdbMemoryLimit,
    duckdbTempDir: opts.duckdbTempDir,
    duckdbTempLimit: opts.duckdbTempLimit,
    duckdbThreads: opts.duckdbThreads,
    geoipDb: opts.geoipDb,
    trustProxy: opts.trustProxy,
    collectRateLimit: opts.collectRateLimit,
    metricsPort: opts.metricsPort,
    metricsHost: opts.metricsHost,
    publicUrl: opts.publicUrl,
  });
}
