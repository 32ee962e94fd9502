// Starts the server: builds the container, the app, listens, and shuts down gracefully.
import type { FastifyInstance } from 'fastify';
import type { Config } from './config/config.js';
import { buildApp, type BuildAppOptions } from './app.js';
import { buildContainer, openLiveCollection, type Container, type ContainerOverrides } from './container.js';
import type { LiveCollection } from './ingest/collect/open-collection.js';
import type { LoaderOptions } from './ingest/collect/loader.js';
import { startMetricsServer, type MetricsServer } from './http/prometheus/metrics-server.js';
import { startAdminSocket, type AdminSocket } from './ingest/admin/admin-socket-server.js';
import { startDailyPurge, type DailyPurge, type DailyPurgeOptions } from './services/lifecycle/daily-purge.js';
import { startReportSweep, type ReportSweep } from './services/report-mail/report-sweep.js';
import type { SendDeps } from './services/report-mail/send-reports.js';

export interface RunningServer {
  app: FastifyInstance;
  container: Container;
  /** e.g. http://127.0.0.1:8080 */
  address: string;
  /** live collection (POST /api/event); null when switched off */
  collection: LiveCollection | null;
  /** the Prometheus listener, e.g. http://127.0.0.1:9464 (GET /metrics); undefined when off */
  metricsAddress?: string;
  /** technical retention once a day; null without a control plane of the container's own */
  purge: DailyPurge | null;
  /** the reports due, mailed every minute; null without mail or a report store */
  reports: ReportSweep | null;
  /** stops accepting, lets in-flight requests finish, closes the stores; idempotent */
  close(): Promise<void>;
}

export async function startServer(
  config: Readonly<Config>,
  options: {
    overrides?: ContainerOverrides;
    app?: BuildAppOptions;
    collect?: boolean | Pick<LoaderOptions, 'intervalMs' | 'triggerRecords'>;
    /** called as soon as the port listens, before any request can be answered (and so logged) */
    onListening?: () => void;
    /** false: no daily purge (default on, when the control plane has its lifecycle side) */
    purge?: boolean | Omit<DailyPurgeOptions, 'log'>;
    /** false: no report sweep (default on when mail is configured) */
    reports?: boolean;
  } = {},
): Promise<RunningServer> {
  const container = await buildContainer(config, options.overrides);
  let app: FastifyInstance | undefined;
  let admin: AdminSocket | undefined;
  let collection: LiveCollection | null = null;
  let metrics: MetricsServer | undefined;
  const reportDeps = sendDepsOf(container);
  try {
    // The loader logs through the app's logger, which exists only once the app is built.
    const log = {
      warn: (details: Record<string, unknown>, message: string) => app?.log.warn(details, message),
      info: (details: Record<string, unknown>, message: string) => app?.log.info(details, message),
    };
    if (options.collect !== false)
      collection = await openLiveCollection(config, container, { log, ...(typeof options.collect === 'object' ? options.collect : {}) });
    app = await buildApp(collection ? { ...container, collector: collection.collector } : container, options.app);
    await app.listen({ host: config.host, port: config.port });
    options.onListening?.();
    if (config.metricsPort !== undefined && container.exposition)
      metrics = await startMetricsServer(container.exposition, config.metricsHost, config.metricsPort);
    // A store one process owns (DuckDB's file): imports reach it through this server's local socket.
    if (container.backend?.adminImports)
      admin = await startAdminSocket(config.dataDir, {
        events: container.backend.store,
        backup: container.backend.snapshot,
        log: app.log,
        metrics: container.metrics,
        sendReports: reportDeps ? (nowMs) => sendDueReportsAt(reportDeps, nowMs, app!) : undefined,
      });
  } catch (err) {
    await metrics?.close();
    if (app) await app.close().catch(() => undefined);
    await collection?.close().catch(() => undefined);
    await container.close();
    throw err;
  }
  const addr = app.server.address();
  const address =
    typeof addr === 'object' && addr ? `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}` : String(addr);
  app.log.info({ address, metrics: metrics?.address }, `footfall listening on ${address}`);
  const lifecycle = container.lifecycle;
  const purge =
    options.purge !== false && lifecycle
      ? startDailyPurge(
          { catalog: container.catalog, lifecycle, store: container.events, clock: container.clock },
          { log: app.log, ...(typeof options.purge === 'object' ? options.purge : {}) },
        )
      : null;
  const reports = options.reports !== false && reportDeps ? startReportSweep(reportDeps, app.log) : null;
  let closing: Promise<void> | undefined;
  return {
    app,
    container,
    address,
    collection,
    metricsAddress: metrics?.address,
    purge,
    reports,
    close: () =>
      (closing ??= (async () => {
        try {
          purge?.stop();
          await reports?.stop();
          await admin?.close();
          await metrics?.close();
          await app.close();
          // after the listener: nothing is accepted any more; what waits is loaded now, not at the next start
          await collection?.close();
        } finally {
          await container.close();
        }
      })()),
  };
}

/** What the report sweep needs, when the container has it all: mail, the report store, people, reads. */
function sendDepsOf(c: Container): SendDeps | null {
  if (!c.mailer || !c.reports || !c.people || !c.analytics) return null;
  return { ...c, mailer: c.mailer, reports: c.reports, people: c.people };
}

async function sendDueReportsAt(deps: SendDeps, nowMs: number, app: FastifyInstance) {
  const { sendDueReports } = await import('./services/report-mail/send-reports.js');
  return sendDueReports(deps, nowMs, app.log);
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
