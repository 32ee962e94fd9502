// FOOTFALL_EVENTS_URL for ClickHouse: clickhouse+http://[user[:password]@]host:port[,host:port...]/db[?cluster=NAME].
// Without cluster: one server. With cluster: the hosts are the HTTP endpoints of every shard of
// that cluster (as the servers' remote_servers name it); the first one coordinates (docs/decisions/clickhouse.md).

export interface ClickHouseTarget {
  /** http(s)://host:port of each server, the coordinator first */
  nodes: string[];
  database: string;
  cluster: string | null;
  username: string;
  password: string;
}

const URL_RE = /^clickhouse\+(https?):\/\/(?:([^@/?]*)@)?([^/?@]+)(?:\/([A-Za-z0-9_]*))?(?:\?cluster=([A-Za-z0-9_]+))?$/;
const HOST_RE = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;

export class ClickHouseUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClickHouseUrlError';
  }
}

export function isClickHouseUrl(url: string): boolean {
  return url.startsWith('clickhouse+');
}

export function parseClickHouseUrl(url: string): ClickHouseTarget {
  const m = URL_RE.exec(url);
  if (!m)
    throw new ClickHouseUrlError('expected clickhouse+http://host:port/db or clickhouse+http://host1:port,host2:port/db?cluster=NAME');
  const [, scheme, userinfo, hostList, db, cluster] = m;
  const hosts = hostList.split(',');
  for (const h of hosts) if (!HOST_RE.test(h)) throw new ClickHouseUrlError(`"${h}" is not host:port`);
  if (new Set(hosts).size !== hosts.length) throw new ClickHouseUrlError('a host is listed twice');
  if (hosts.length > 1 && !cluster) throw new ClickHouseUrlError('several hosts need ?cluster=NAME (the cluster they are the shards of)');
  let username = 'default';
  let password = '';
  if (userinfo !== undefined) {
    const i = userinfo.indexOf(':');
    username = decodeURIComponent(i < 0 ? userinfo : userinfo.slice(0, i));
    password = i < 0 ? '' : decodeURIComponent(userinfo.slice(i + 1));
  }
  return {
    nodes: hosts.map((h) => `${scheme}://${h.includes(':') && !h.endsWith(']') ? h : `${h}:8123`}`),
    database: db || 'default',
    cluster: cluster ?? null,
    username,
    password,
  };
}

/** The URL without its password, for messages. */
export function redactClickHouseUrl(url: string): string {
  return url.replace(/\/\/([^@/:]*):[^@/]*@/, '//$1:***@');
}
