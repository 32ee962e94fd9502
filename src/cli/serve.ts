// `footfall serve`: loads the configuration, listens, logs the address, stops on SIGINT/SIGTERM.
import type { Command } from 'commander';
import { commandConfig, withStoreOptions, type StoreOptions } from './options.js';

export function registerServe(program: Command): void {
  withStoreOptions(
    program
      .command('serve')
      .description('serve the read API (never adds data)')
      .option('--host <host>', 'address to listen on (FOOTFALL_HOST, default 127.0.0.1)')
      .option('--port <port>', 'port to listen on (FOOTFALL_PORT, default 8080)')
      .option('--log-level <level>', 'fatal|error|warn|info|debug|trace|silent (FOOTFALL_LOG_LEVEL, default info)')
      .option('--query-timeout-ms <ms>', 'analytics query timeout (FOOTFALL_QUERY_TIMEOUT_MS, default 10000)')
      .option(
        '--trust-proxy <trust>',
        'whose X-Forwarded-For gives the client address of POST /api/event: true, a hop count, or addresses/CIDRs (FOOTFALL_TRUST_PROXY, default false)',
      )
      .option(
        '--collect-rate-limit <n>',
        'events per minute one client address may send to POST /api/event, 0 = no limit (FOOTFALL_COLLECT_RATE_LIMIT, default 600)',
      )
      .option(
        '--geoip-db <files>',
        'MMDB files that locate collected events, comma-separated, or off (FOOTFALL_GEOIP_DB, default the bundled DB-IP Lite)',
      )
      .option('--metrics-port <port>', 'Prometheus metrics listener, GET /metrics (FOOTFALL_METRICS_PORT, default off)')
      .option('--metrics-host <host>', 'address of the metrics listener (FOOTFALL_METRICS_HOST, default 127.0.0.1)')
      .option(
        '--public-url <origin>',
        'origin browsers reach the server at, for links and the Origin check (FOOTFALL_PUBLIC_URL, default http://<host>:<port>)',
      )
      .option(
        '--dns-servers <list>',
        "resolvers the management API's site verify asks, ip[:port] comma-separated (FOOTFALL_DNS_SERVERS, default the system's)",
      ),
  ).action(async (opts: StoreOptions & { host?: string; port?: string; queryTimeoutMs?: string }) => {
    const config = commandConfig(opts);
    // Loaded here, not at the top: the server's modules are most of what a command could load.
    const { closeOnSignals, startServer } = await import('../main.js');
    // With --json, stdout carries only the one JSON object; logs go to stderr.
    const server = await startServer(config, {
      app: opts.json ? { logger: { level: config.logLevel, stream: process.stderr } } : undefined,
    });
    if (opts.json)
      process.stdout.write(
        JSON.stringify({ address: server.address, ...(server.metricsAddress ? { metrics: server.metricsAddress } : {}) }) + '\n',
      );
    closeOnSignals(server);
  });
}
