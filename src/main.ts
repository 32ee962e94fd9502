// Starts the server: builds the container, the app, listens, and shuts down gracefully.
import type { FastifyInstance } from 'fastify';
import type { Config } from './config/config.js';
import { buildApp, type BuildAppOptions } from './app.js';
import { buildContainer, type Container, type ContainerOverrides } from './container.js';
import { startAdminSocket, type AdminSocket } from './ingest/admin/admin-socket-server.js';

export interface RunningServer {
  app: FastifyInstance;
  container: Container;
  /** e.g. http://127.0.0.1:8080 */
  address: string;
  /** stops accepting, lets in-flight requests finish, closes the stores; idempotent */
  close(): Promise<void>;
}

export async function startServer(
  config: Readonly<Config>,
  options: { overrides?: ContainerOverrides; app?: BuildAppOptions } = {},
): Promise<RunningServer> {
  const container = await buildContainer(config, options.overrides);
  let app: FastifyInstance | undefined;
  let admin: AdminSocket | undefined;
  try {
    app = await buildApp(container, options.app);
    await app.listen({ host: config.host, port: config.port });
    // A store one process owns (DuckDB's file): imports reach it through this server's local socket.
    if (container.backend?.adminImports) admin = await startAdminSocket(config.dataDir, { events: container.backend.store, log: app.log });
  } catch (err) {
    if (app) await app.close().catch(() => undefined);
    await container.close();
    throw err;
  }
  const addr = app.server.address();
  const address =
    typeof addr === 'object' && addr
      ? `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`
      : String(addr);
  app.log.info({ address }, `footfall listening on ${address}`);
  let closing: Promise<void> | undefined;
  return {
    app,
    container,
    address,
    close: () =>
      (closing ??= (async () => {
        try {
          await admin?.close();
          await app.close();
        } finally {
          await container.close();
        }
      })()),
  };
}

/** Closes the server on SIGINT/SIGTERM; a second signal exits at once. */
export function closeOnSignals(server: RunningServer): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    server.app.log.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      (err) => {
        server.app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
