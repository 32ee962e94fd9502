// The running server's local admin socket (docs/product.md §8.17): DuckDB lets one process write its file,
// so `footfall import` hands its rows to the server here instead of opening the store. A Unix
// socket in the data dir, mode 0600: only the data dir's owner can import; never the public port.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { TakeSnapshot } from '../../ports/backup.js';
import type { EventStore, ImportSession } from '../../ports/event-store.js';
import type { Metrics } from '../../ports/metrics.js';
import { reidentify } from '../pipeline/import-lines.js';
import { adminSocketPath, FrameReader, LIFECYCLE_CALLS, writeJson, type AdminRequest } from './framing.js';

export interface AdminSocketDeps {
  events: EventStore;
  /** `footfall backup`'s snapshot of this server's stores (absent: the op is refused) */
  backup?: TakeSnapshot;
  log?: { info(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
  metrics?: Pick<Metrics, 'importCommitted'>;
  /** `footfall report send`'s sweep at an instant, with this server's reads and mailer (absent: refused) */
  sendReports?: (nowMs: number) => Promise<unknown>;
}

export interface AdminSocket {
  path: string;
  close(): Promise<void>;
}

export class AdminSocketInUseError extends Error {
  readonly code = 'ADMIN_SOCKET_IN_USE';
  constructor(file: string) {
    super(`another footfall server already serves this data dir (${file} answers)`);
    this.name = 'AdminSocketInUseError';
  }
}

/** Listens on <dataDir>/admin.sock; a stale socket file left by a dead server is replaced. */
export async function startAdminSocket(dataDir: string, deps: AdminSocketDeps): Promise<AdminSocket> {
  const file = adminSocketPath(dataDir);
  fs.mkdirSync(dataDir, { recursive: true });
  if (fs.existsSync(file)) {
    if (await answers(file)) throw new AdminSocketInUseError(file);
    fs.rmSync(file, { force: true });
  }
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    serveConnection(socket, deps).catch((err) => deps.log?.error({ err }, 'admin socket connection failed'));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // umask-proof: create the socket unreadable to others, then listen.
    const old = process.umask(0o177);
    try {
      server.listen(file, () => resolve());
    } finally {
      process.umask(old);
    }
  });
  fs.chmodSync(file, 0o600);
  return {
    path: file,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

async function serveConnection(socket: net.Socket, deps: AdminSocketDeps): Promise<void> {
  const reader = new FrameReader(socket);
  let session: ImportSession | null = null;
  try {
    for (;;) {
      const req = await reader.readJson<AdminRequest>();
      if (req === null) break;
      try {
        switch (req.op) {
          case 'ping':
            writeJson(socket, { ok: true, pid: process.pid });
            break;
          case 'import-begin':
            if (session) throw new Error('an import is already open on this connection');
            if (req.import_id !== undefined && typeof req.import_id !== 'string') throw new Error('import_id must be a string');
            session = await deps.events.beginImport({ reidentify, importId: req.import_id });
            writeJson(socket, { ok: true });
            break;
          case 'rows': {
            // as bytes: the store writes them to its chunk file as they came (a decoded copy of each
            // payload, about 20 MB, was most of the server's JS memory during an import)
            const bytes = await reader.readBytes(req.bytes);
            if (!session) throw new Error('rows before import-begin');
            await session.appendEncoded(bytes, req.count);
            writeJson(socket, { ok: true });
            break;
          }
          case 'commit': {
            if (!session) throw new Error('commit before import-begin');
            const s = session;
            session = null;
            const result = await s.commit();
            deps.log?.info({ imported: result.imported, duplicates: result.duplicates, days: result.days.length }, 'import committed');
            deps.metrics?.importCommitted(result.imported, result.duplicates);
            writeJson(socket, { ok: true, result });
            break;
          }
          case 'abort':
            if (session) await session.abort();
            session = null;
            writeJson(socket, { ok: true });
            break;
          case 'lifecycle': {
            // only the listed calls: the socket never becomes a way to call anything else of the store
            if (!LIFECYCLE_CALLS.includes(req.call) || !Array.isArray(req.args))
              throw new Error(`unknown lifecycle call ${JSON.stringify(req.call)}`);
            const fn = deps.events[req.call] as (...args: unknown[]) => Promise<unknown>;
            const result = await fn.apply(deps.events, req.args);
            deps.log?.info({ call: req.call }, 'lifecycle call done');
            writeJson(socket, { ok: true, result });
            break;
          }
          case 'backup': {
            if (!deps.backup) throw new Error('this server cannot back up its stores');
            if (typeof req.dir !== 'string' || !path.isAbsolute(req.dir) || !fs.statSync(req.dir, { throwIfNoEntry: false })?.isDirectory())
              throw new Error('backup needs the absolute path of a directory made for it');
            const started = performance.now();
            const result = await deps.backup(req.dir);
            deps.log?.info({ dir: req.dir, seconds: Math.round(performance.now() - started) / 1000 }, 'backup snapshot written');
            writeJson(socket, { ok: true, result });
            break;
          }
          case 'reports-send': {
            if (!deps.sendReports)
              throw Object.assign(new Error('this server sends no reports (is FOOTFALL_SMTP_URL set?)'), { code: 'REPORTS_FAILED' });
            if (typeof req.now_ms !== 'number' || !Number.isFinite(req.now_ms)) throw new Error('now_ms must be a number');
            const result = await deps.sendReports(req.now_ms);
            writeJson(socket, { ok: true, result });
            break;
          }
          default:
            throw new Error(`unknown op ${JSON.stringify((req as { op?: unknown }).op)}`);
        }
      } catch (err) {
        const e = err as { code?: unknown; message?: string };
        const what =
          req.op === 'lifecycle' ? 'lifecycle call' : req.op === 'backup' ? 'backup' : req.op === 'reports-send' ? 'report send' : 'import';
        const code =
          typeof e.code === 'string'
            ? e.code
            : req.op === 'lifecycle'
              ? 'LIFECYCLE_FAILED'
              : req.op === 'backup'
                ? 'BACKUP_FAILED'
                : 'IMPORT_FAILED';
        // The request fails alone: the server logs why and goes on serving.
        deps.log?.error({ err, code }, `${what} failed: ${e.message ?? String(err)}`);
        writeJson(socket, { ok: false, error: { code, message: e.message ?? String(err) } });
        if (session) await session.abort();
        session = null;
      }
    }
  } finally {
    // A client that goes away without committing leaves nothing behind.
    if (session) await (session as ImportSession).abort().catch(() => undefined);
    socket.end();
  }
}

function answers(file: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(file);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
