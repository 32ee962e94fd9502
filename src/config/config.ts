// Configuration: parsed once at boot from the environment and CLI flags, then frozen.
// Nothing else in the code reads process.env.
import path from 'node:path';

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** undefined = SQLite in the data dir */
  controlUrl?: string;
  /** undefined = DuckDB in the data dir */
  eventsUrl?: string;
  /** undefined = in-process limiter */
  redisUrl?: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** analytics query timeout */
  queryTimeoutMs: number;
  /** embedded store (DuckDB): memory limit, e.g. 1GB; past it, work spills to the temp directory */
  duckdbMemoryLimit?: string;
  /** embedded store: where spilled data and staged import chunks go (default: beside the database file) */
  duckdbTempDir?: string;
  /** embedded store: cap of that temp directory, e.g. 20GB (default: half the free space at start) */
  duckdbTempLimit?: string;
  /** embedded store: worker threads (default: every core) */
  duckdbThreads?: number;
  /** geolocation database: MMDB file paths joined by commas, absolute; 'off'; undefined = the bundled DB-IP Lite */
  geoipDb?: string;
  /** Prometheus metrics listener; undefined = no listener and no metrics kept */
  metricsPort?: number;
  /** address of the metrics listener (default 127.0.0.1, whatever the API host is) */
  metricsHost: string;
}

/** Flag name (camelCase, as commander gives it) -> env variable. */
export const CONFIG_ENV: Record<keyof Config, string> = {
  host: 'FOOTFALL_HOST',
  port: 'FOOTFALL_PORT',
  dataDir: 'FOOTFALL_DATA_DIR',
  controlUrl: 'FOOTFALL_CONTROL_URL',
  eventsUrl: 'FOOTFALL_EVENTS_URL',
  redisUrl: 'FOOTFALL_REDIS_URL',
  logLevel: 'FOOTFALL_LOG_LEVEL',
  queryTimeoutMs: 'FOOTFALL_QUERY_TIMEOUT_MS',
  duckdbMemoryLimit: 'FOOTFALL_DUCKDB_MEMORY_LIMIT',
  duckdbTempDir: 'FOOTFALL_DUCKDB_TEMP_DIR',
  duckdbTempLimit: 'FOOTFALL_DUCKDB_TEMP_LIMIT',
  duckdbThreads: 'FOOTFALL_DUCKDB_THREADS',
  geoipDb: 'FOOTFALL_GEOIP_DB',
  metricsPort: 'FOOTFALL_METRICS_PORT',
  metricsHost: 'FOOTFALL_METRICS_HOST',
};

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Raw = Partial<Record<keyof Config, string | number | undefined>>;

/**
 * Builds the config from flags (win) and env (fallback). Collects every bad setting
 * and throws one ConfigError naming them all.
 */
export function loadConfig(flags: Raw = {}, env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const problems: string[] = [];
  const pick = (k: keyof Config): string | undefined => {
    const v = flags[k] ?? env[CONFIG_ENV[k]];
    return v === undefined || v === '' ? undefined : String(v);
  };
  const name = (k: keyof Config) => `${CONFIG_ENV[k]} (--${k.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())})`;

  const hostOf = (k: 'host' | 'metricsHost') => {
    const h = pick(k) ?? '127.0.0.1';
    if (!/^[A-Za-z0-9.:\-\[\]]+$/.test(h)) problems.push(`${name(k)}: "${h}" is not a host name or address`);
    return h;
  };
  const portOf = (raw: string, k: 'port' | 'metricsPort') => {
    if (!/^\d+$/.test(raw) || Number(raw) > 65535) problems.push(`${name(k)}: "${raw}" is not a port (0-65535)`);
    return Number(raw);
  };
  const host = hostOf('host');
  const port = portOf(pick('port') ?? '8080', 'port');
  const metricsRaw = pick('metricsPort');
  const metricsPort = metricsRaw === undefined ? undefined : portOf(metricsRaw, 'metricsPort');
  const metricsHost = hostOf('metricsHost');

  const dataDir = path.resolve(pick('dataDir') ?? './data');

  const controlUrl = pick('controlUrl');
  if (controlUrl !== undefined && !/^postgres(ql)?:\/\/.+/.test(controlUrl))
    problems.push(`${name('controlUrl')}: "${redact(controlUrl)}" must be a postgres:// URL (unset = SQLite)`);

  const eventsUrl = pick('eventsUrl');
  // ?cluster=NAME: a sharded store (docs/scaling-out.md); then host lists every shard, first host first
  if (eventsUrl !== undefined && !/^clickhouse\+https?:\/\/[^/?]+(\/[A-Za-z0-9_]*)?(\?cluster=[A-Za-z0-9_]+)?$/.test(eventsUrl))
    problems.push(`${name('eventsUrl')}: "${redact(eventsUrl)}" must be clickhouse+http://host:port/db or clickhouse+http://host1:port,host2:port/db?cluster=NAME (unset = DuckDB)`);

  const redisUrl = pick('redisUrl');
  if (redisUrl !== undefined && !/^rediss?:\/\/.+/.test(redisUrl))
    problems.push(`${name('redisUrl')}: "${redact(redisUrl)}" must be a redis:// URL (unset = in-process)`);

  const logLevel = (pick('logLevel') ?? 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`${name('logLevel')}: "${logLevel}" must be one of ${LOG_LEVELS.join(', ')}`);

  const timeoutRaw = pick('queryTimeoutMs') ?? '10000';
  const queryTimeoutMs = Number(timeoutRaw);
  if (!/^\d+$/.test(timeoutRaw) || queryTimeoutMs < 1) problems.push(`${name('queryTimeoutMs')}: "${timeoutRaw}" must be a positive integer of milliseconds`);

  const size = (k: 'duckdbMemoryLimit' | 'duckdbTempLimit') => {
    const v = pick(k);
    if (v !== undefined && !SIZE.test(v)) problems.push(`${name(k)}: "${v}" must be a size such as 512MB, 2GB or 1.5GiB`);
    return v;
  };
  const duckdbMemoryLimit = size('duckdbMemoryLimit');
  const duckdbTempLimit = size('duckdbTempLimit');
  const tempDirRaw = pick('duckdbTempDir');
  const duckdbTempDir = tempDirRaw === undefined ? undefined : path.resolve(tempDirRaw);
  const threadsRaw = pick('duckdbThreads');
  const duckdbThreads = threadsRaw === undefined ? undefined : Number(threadsRaw);
  if (threadsRaw !== undefined && (!/^\d+$/.test(threadsRaw) || duckdbThreads! < 1 || duckdbThreads! > 256))
    problems.push(`${name('duckdbThreads')}: "${threadsRaw}" must be an integer from 1 to 256`);

  // Whether the files are MMDB databases is checked where they are opened (ingest/parse/mmdb-geo-lookup.ts).
  const geoRaw = pick('geoipDb');
  const geoFiles = geoRaw === undefined || geoRaw === 'off' ? [] : geoRaw.split(',').map((f) => f.trim()).filter((f) => f !== '');
  if (geoRaw !== undefined && geoRaw !== 'off' && geoFiles.length === 0) problems.push(`${name('geoipDb')}: "${geoRaw}" must name MMDB files (comma-separated) or be off`);
  const geoipDb = geoRaw === 'off' ? 'off' : geoFiles.length ? geoFiles.map((f) => path.resolve(f)).join(',') : undefined;

  if (problems.length) throw new ConfigError(problems);
  return Object.freeze({
    host, port, dataDir, controlUrl, eventsUrl, redisUrl, logLevel, queryTimeoutMs,
    duckdbMemoryLimit, duckdbTempDir, duckdbTempLimit, duckdbThreads, geoipDb, metricsPort, metricsHost,
  });
}

/** A DuckDB size setting: a number and a unit (DuckDB reads both decimal and binary units). */
const SIZE = /^\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i;

function redact(url: string): string {
  return url.replace(/\/\/([^@/]*)@/, '//***@');
}
