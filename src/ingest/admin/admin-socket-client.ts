// `footfall import`'s side of the admin socket: if a server runs on the data dir, rows go to it.
import fs from 'node:fs';
import net from 'node:net';
import { encodeEventRows, ImportNotFoundError, type EventRow, type EventStore, type ImportResult } from '../../ports/event-store.js';
import type { ImportSink } from '../pipeline/import-lines.js';
import type { SnapshotTaken } from '../../ports/backup.js';
import { FrameReader, writeJson, type AdminReply, type AdminRequest, type LifecycleCall } from './framing.js';
import { adminSocketPath } from './framing.js';

export class AdminSocketError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'AdminSocketError';
  }
}

export class AdminClient {
  private busy: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly socket: net.Socket,
    private readonly reader: FrameReader,
  ) {}

  /** Connects to the server of this data dir, or returns null when none listens. */
  static async connect(dataDir: string): Promise<AdminClient | null> {
    const file = adminSocketPath(dataDir);
    if (!fs.existsSync(file)) return null;
    const socket = await new Promise<net.Socket | null>((resolve) => {
      const s = net.connect(file);
      s.once('connect', () => resolve(s));
      s.once('error', () => resolve(null)); // stale file of a dead server
    });
    if (!socket) return null;
    const client = new AdminClient(socket, new FrameReader(socket));
    await client.request({ op: 'ping' });
    return client;
  }

  /** One request at a time, in order; rejects with the server's error. */
  request(req: AdminRequest, payload?: string): Promise<Record<string, unknown>> {
    const run = async () => {
      writeJson(this.socket, req);
      if (payload !== undefined) this.socket.write(payload);
      const reply = await this.reader.readJson<AdminReply>();
      if (reply === null) throw new AdminSocketError('ADMIN_SOCKET_CLOSED', 'the server closed the admin connection');
      if (!reply.ok) throw new AdminSocketError(reply.error.code, reply.error.message);
      return reply;
    };
    const next = this.busy.then(run, run);
    this.busy = next.catch(() => undefined);
    return next;
  }

  async beginImport(importId?: string): Promise<ImportSink> {
    await this.request({ op: 'import-begin', ...(importId === undefined ? {} : { import_id: importId }) });
    const appendEncoded = async (text: string, count: number) => {
      if (count === 0) return;
      await this.request({ op: 'rows', count, bytes: Buffer.byteLength(text) }, text);
    };
    return {
      append: (rows: readonly EventRow[]) => appendEncoded(encodeEventRows(rows), rows.length),
      appendEncoded,
      commit: async () => (await this.request({ op: 'commit' })).result as ImportResult,
      abort: async () => {
        await this.request({ op: 'abort' });
      },
    };
  }

  /** The running server's store, for its lifecycle calls (purge, deletion, undo, counts). */
  lifecycleStore(): Pick<EventStore, LifecycleCall> {
    const call =
      (name: LifecycleCall) =>
      async (...args: unknown[]) => {
        try {
          return (await this.request({ op: 'lifecycle', call: name, args })).result;
        } catch (err) {
          // the same error as the store's own, so callers tell an unknown import apart either way
          if (err instanceof AdminSocketError && err.code === 'IMPORT_NOT_FOUND') throw new ImportNotFoundError(String(args[0]));
          throw err;
        }
      };
    return {
      purgeDays: call('purgeDays'),
      previewPurge: call('previewPurge'),
      deleteSiteData: call('deleteSiteData'),
      undoImport: call('undoImport'),
      eventCounts: call('eventCounts'),
    } as Pick<EventStore, LifecycleCall>;
  }

  /** The running server's snapshot of its stores, written into `dir` (`footfall backup`). */
  /** The running server sends the reports due at `nowMs` (`footfall report send` while it runs). */
  async sendReports(nowMs: number): Promise<unknown> {
    return (await this.request({ op: 'reports-send', now_ms: nowMs })).result;
  }

  async backup(dir: string): Promise<SnapshotTaken> {
    return (await this.request({ op: 'backup', dir })).result as SnapshotTaken;
  }

  close(): void {
    this.socket.end();
    this.socket.destroy();
  }
}
