// Configuration: parsed once at boot from the environment and CLI flags, then frozen.
// Nothing else in the code reads process.env.
import net from 'node:net';
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
  /**
   * Whose X-Forwarded-For to believe for the client address of POST /api/event (Fastify's trustProxy):
   * false = the socket's address; true = the left-most address; n = the address n hops back;
   * a list of addresses and CIDR ranges = every proxy in it is trusted.
   */
  trustProxy: boolean | number | string[];
  /** events one client address may send to POST /api/event per minute, per process; 0 = no limit */
  collectRateLimit: number;
  /** Prometheus metrics listener; undefined = no listener and no metrics kept */
  metricsPort?: number;
  /** address of the metrics listener (default 127.0.0.1, whatever the API host is) */
  metricsHost: string;
  /** the origin browsers reach the server at: links handed out, and the Origin the management API accepts */
  publicUrl: string;
  /** resolvers of domain proofs (`ip` or `ip:port`, `[v6]:port`); undefined = the system's */
  dnsServers?: readonly string[];
  /** outgoing mail (invitations, password resets); undefined = no mail is sent */
  smtpUrl?: SmtpSettings;
  /** the From of every mail; set exactly when smtpUrl is */
  mailFrom?: string;
  /** a PEM file of certificates to trust for the mail server's TLS, besides the system's (a private CA) */
  smtpCa?: string;
}

/**
 * FOOTFALL_SMTP_URL taken apart. The password is a non-enumerable property: JSON, pino and
 * util.inspect skip it, so a config printed or logged whole never shows it.
 */
export interface SmtpSettings {
  /** smtps://: TLS from the first byte; smtp://: STARTTLS when the server offers it */
  secure: boolean;
  host: string;
  port: number;
  user?: string;
  readonly password?: string;
  /** the URL without its credentials, for messages */
  display: string;
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
  trustProxy: 'FOOTFALL_TRUST_PROXY',
  collectRateLimit: 'FOOTFALL_COLLECT_RATE_LIMIT',
  metricsPort: 'FOOTFALL_METRICS_PORT',
  metricsHost: 'FOOTFALL_METRICS_HOST',
  publicUrl: 'FOOTFALL_PUBLIC_URL',
  dnsServers: 'FOOTFALL_DNS_SERVERS',
  smtpUrl: 'FOOTFALL_SMTP_URL',
  mailFrom: 'FOOTFALL_MAIL_FROM',
  smtpCa: 'FOOTFALL_SMTP_CA',
};

/** Settings read from the environment only: a password on the command line would show in the process list. */
const ENV_ONLY = new Set<keyof Config>(['smtpUrl', 'mailFrom', 'smtpCa']);

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
  const name = (k: keyof Config) =>
    ENV_ONLY.has(k) ? CONFIG_ENV[k] : `${CONFIG_ENV[k]} (--${k.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())})`;

  const hostOf = (k: 'host' | 'metricsHost') => {
    const h = pick(k) ?? '127.0.0.1';
    if (!/^[A-Za-z0-9.:\-[\]]+$/.test(h)) problems.push(`${name(k)}: "${h}" is not a host name or address`);
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
    problems.push(
      `${name('eventsUrl')}: "${redact(eventsUrl)}" must be clickhouse+http://host:port/db or clickhouse+http://host1:port,host2:port/db?cluster=NAME (unset = DuckDB)`,
    );

  const redisUrl = pick('redisUrl');
  if (redisUrl !== undefined && !/^rediss?:\/\/.+/.test(redisUrl))
    problems.push(`${name('redisUrl')}: "${redact(redisUrl)}" must be a redis:// URL (unset = in-process)`);

  const logLevel = (pick('logLevel') ?? 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`${name('logLevel')}: "${logLevel}" must be one of ${LOG_LEVELS.join(', ')}`);

  const timeoutRaw = pick('queryTimeoutMs') ?? '10000';
  const queryTimeoutMs = Number(timeoutRaw);
  if (!/^\d+$/.test(timeoutRaw) || queryTimeoutMs < 1)
    problems.push(`${name('queryTimeoutMs')}: "${timeoutRaw}" must be a positive integer of milliseconds`);

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
  const geoFiles =
    geoRaw === undefined || geoRaw === 'off'
      ? []
      : geoRaw
          .split(',')
          .map((f) => f.trim())
          .filter((f) => f !== '');
  if (geoRaw !== undefined && geoRaw !== 'off' && geoFiles.length === 0)
    problems.push(`${name('geoipDb')}: "${geoRaw}" must name MMDB files (comma-separated) or be off`);
  const geoipDb = geoRaw === 'off' ? 'off' : geoFiles.length ? geoFiles.map((f) => path.resolve(f)).join(',') : undefined;

  const trustRaw = pick('trustProxy');
  const trustProxy = trustRaw === undefined ? false : parseTrustProxy(trustRaw);
  if (typeof trustProxy === 'string')
    problems.push(
      `${name('trustProxy')}: "${trustRaw}" ${trustProxy} (true, false, a hop count, or addresses and CIDR ranges, comma-separated)`,
    );

  const rateRaw = pick('collectRateLimit') ?? String(DEFAULT_COLLECT_RATE_LIMIT);
  const collectRateLimit = Number(rateRaw);
  if (!/^\d+$/.test(rateRaw) || collectRateLimit > 1e9)
    problems.push(`${name('collectRateLimit')}: "${rateRaw}" must be a whole number of events per minute per address (0 = no limit)`);

  const publicUrl = publicOrigin(pick('publicUrl'), host, port);
  if (publicUrl === null)
    problems.push(`${name('publicUrl')}: "${pick('publicUrl')}" must be an http:// or https:// origin, e.g. https://analytics.example.com`);

  const dnsRaw = pick('dnsServers');
  const dnsServers =
    dnsRaw === undefined
      ? undefined
      : Object.freeze(
          dnsRaw
            .split(',')
            .map((e) => e.trim())
            .filter((e) => e !== ''),
        );
  const badDns = dnsServers?.find((e) => !isDnsServer(e));
  if (dnsServers !== undefined && (dnsServers.length === 0 || badDns !== undefined))
    problems.push(`${name('dnsServers')}: "${badDns ?? dnsRaw}" is not a resolver address (ip or ip:port, [ipv6]:port; comma-separated)`);

  const smtpRaw = pick('smtpUrl');
  const smtpUrl = smtpRaw === undefined ? undefined : parseSmtpUrl(smtpRaw);
  if (typeof smtpUrl === 'string')
    problems.push(
      // the value is not echoed: a password with a character the URL cannot hold would show through any masking
      `${name('smtpUrl')} (its value not shown) ${smtpUrl}: smtp://user:password@host:587 (STARTTLS when offered) or smtps://user:password@host:465, the user and password percent-encoded`,
    );
  const mailFrom = pick('mailFrom');
  if (smtpRaw !== undefined && mailFrom === undefined)
    problems.push(`${name('mailFrom')} must be set with ${name('smtpUrl')}: the From address of the mail sent, e.g. footfall@example.com`);
  if (mailFrom !== undefined && !isMailbox(mailFrom))
    problems.push(
      `${name('mailFrom')}: ${JSON.stringify(mailFrom)} must be an address (footfall@example.com) or a name and one (Footfall <footfall@example.com>)`,
    );
  if (mailFrom !== undefined && smtpRaw === undefined)
    problems.push(`${name('mailFrom')} is set but ${name('smtpUrl')} is not: set both to send mail, or neither`);
  const caRaw = pick('smtpCa');
  const smtpCa = caRaw === undefined ? undefined : path.resolve(caRaw);
  if (smtpCa !== undefined && smtpRaw === undefined)
    problems.push(`${name('smtpCa')} is set but ${name('smtpUrl')} is not: it names the certificates to trust for that server`);

  if (problems.length) throw new ConfigError(problems);
  return Object.freeze({
    host,
    port,
    dataDir,
    controlUrl,
    eventsUrl,
    redisUrl,
    logLevel,
    queryTimeoutMs,
    duckdbMemoryLimit,
    duckdbTempDir,
    duckdbTempLimit,
    duckdbThreads,
    geoipDb,
    metricsPort,
    metricsHost,
    trustProxy: trustProxy as Config['trustProxy'],
    collectRateLimit,
    publicUrl: publicUrl!,
    dnsServers,
    smtpUrl: smtpUrl as SmtpSettings | undefined,
    mailFrom,
    smtpCa,
  });
}

/** FOOTFALL_SMTP_URL as SmtpSettings, or a string saying what is wrong (never naming the password). */
function parseSmtpUrl(raw: string): SmtpSettings | string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') return 'must be an smtp:// or smtps:// URL';
  if (url.hostname === '') return 'names no host';
  if (url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) return 'must have no path, query or fragment';
  if (url.password !== '' && url.username === '') return 'has a password but no user';
  const secure = url.protocol === 'smtps:';
  const port = url.port === '' ? (secure ? 465 : 587) : Number(url.port);
  let user: string | undefined;
  let password: string | undefined;
  try {
    user = url.username === '' ? undefined : decodeURIComponent(url.username);
    password = url.password === '' ? undefined : decodeURIComponent(url.password);
  } catch {
    return 'has a user or password that is not percent-encoded properly';
  }
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const settings: SmtpSettings = { secure, host, port, user, display: `${url.protocol}//${url.host}` };
  Object.defineProperty(settings, 'password', { value: password, enumerable: false });
  return Object.freeze(settings);
}

/** `a@b.c` or `Name <a@b.c>`: one mailbox, no line breaks (a header's value). */
function isMailbox(v: string): boolean {
  const addr = /^[^\s@<>",;]+@[^\s@<>",;]+\.[^\s@<>",;]+$/;
  if (/[\r\n]/.test(v)) return false;
  const named = /^([^<>\r\n]*)<([^<>]+)>$/.exec(v.trim());
  return named ? addr.test(named[2]) : addr.test(v.trim());
}

/** FOOTFALL_PUBLIC_URL as an origin (scheme, host, port); by default the address `serve` listens on. */
function publicOrigin(raw: string | undefined, host: string, port: number): string | null {
  if (raw === undefined) return `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) return null;
  return url.origin;
}

export const DEFAULT_COLLECT_RATE_LIMIT = 600;

/** Names proxy-addr (Fastify's trustProxy) gives to ranges. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** FOOTFALL_TRUST_PROXY as Fastify's trustProxy takes it, or a string saying what is wrong. */
function parseTrustProxy(raw: string): boolean | number | string[] | string {
  const v = raw.trim().toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  if (/^\d+$/.test(v)) return Number(v) <= 100 ? Number(v) : 'is too many hops';
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (entries.length === 0) return 'names nothing';
  for (const e of entries) {
    if (PROXY_RANGE_NAMES.includes(e)) continue;
    const [addr, bits, extra] = e.split('/');
    const family = net.isIP(addr);
    const max = family === 4 ? 32 : 128;
    if (family === 0 || extra !== undefined || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= max)))
      return `has "${e}", which is not an address, a CIDR range or one of ${PROXY_RANGE_NAMES.join(', ')}`;
  }
  return entries;
}

/** `1.2.3.4`, `1.2.3.4:53`, `::1`, `[::1]` or `[::1]:53`: what node:dns setServers takes. */
function isDnsServer(entry: string): boolean {
  const portOk = (p: string | undefined) => p === undefined || (Number(p) >= 1 && Number(p) <= 65535);
  const v6 = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(entry);
  if (v6) return net.isIPv6(v6[1]) && portOk(v6[2]);
  const v4 = /^([\d.]+)(?::(\d{1,5}))?$/.exec(entry);
  if (v4) return net.isIPv4(v4[1]) && portOk(v4[2]);
  return net.isIPv6(entry);
}

/** A DuckDB size setting: a number and a unit (DuckDB reads both decimal and binary units). */
const SIZE = /^\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i;

function redact(url: string): string {
  return url.replace(/\/\/([^@/]*)@/, '//***@');
}
