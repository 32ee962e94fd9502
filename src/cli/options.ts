// Options every command shares: where the stores are, and --json; and the configuration they give.
import type { Command } from 'commander';
import { ConfigError, loadConfig, type Config } from '../config/config.js';
import { CliError } from './output.js';
import { usePrivateFiles } from './private-files.js';

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

/**
 * The configuration a command runs with (flags over FOOTFALL_* variables), its data dir made private
 * before anything opens there. Every bad setting is named at once, as INVALID_CONFIG (exit 2).
 */
export function commandConfig(opts: StoreOptions & Partial<Record<keyof Config, string>>): Readonly<Config> {
  let config: Readonly<Config>;
  try {
    config = configFrom(opts);
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, 'INVALID_CONFIG', 2);
    throw err;
  }
  usePrivateFiles(config.dataDir);
  return config;
}

function configFrom(opts: StoreOptions & Partial<Record<keyof Config, string>>): Readonly<Config> {
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
    dnsServers: opts.dnsServers,
  });
}
