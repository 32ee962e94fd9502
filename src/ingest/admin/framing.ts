// Wire format of the admin socket: a JSON header line, optionally followed by `bytes` raw bytes.
import type { Socket } from 'node:net';
import path from 'node:path';

export const ADMIN_SOCKET_FILE = 'admin.sock';

/** The socket of a data dir (client and server meet there; the client must not load the server to know it). */
export function adminSocketPath(dataDir: string): string {
  return path.join(dataDir, ADMIN_SOCKET_FILE);
}

export type AdminRequest =
  | { op: 'ping' }
  | { op: 'import-begin'; import_id?: string }
  | { op: 'rows'; count: number; bytes: number }
  | { op: 'commit' }
  | { op: 'abort' }
  /** one call of the store's lifecycle side (LIFECYCLE_CALLS), its arguments as JSON */
  | { op: 'lifecycle'; call: LifecycleCall; args: unknown[] }
  /** `footfall backup`: the server writes a consistent snapshot of its stores into `dir` (absolute, made by the command) */
  | { op: 'backup'; dir: string }
  /** `footfall report send --now`: the server sends the reports due at `now_ms` (its reads are this server's store) */
  | { op: 'reports-send'; now_ms: number };

/** The event store's calls the admin socket takes for `footfall purge`, `site delete`, `import undo` and `usage`. */
export const LIFECYCLE_CALLS = ['purgeDays', 'previewPurge', 'deleteSiteData', 'undoImport', 'eventCounts'] as const;
export type LifecycleCall = (typeof LIFECYCLE_CALLS)[number];

export type AdminReply = { ok: true; [k: string]: unknown } | { ok: false; error: { code: string; message: string } };

/** Buffers a socket's bytes (as a list: payloads are large) and hands out header lines and payloads in order. */
export class FrameReader {
  private chunks: Buffer[] = [];
  private length = 0;
  private waiter: (() => void) | null = null;
  private ended = false;
  private failure: Error | null = null;

  constructor(socket: Socket) {
    socket.on('data', (d: Buffer) => {
      this.chunks.push(d);
      this.length += d.length;
      this.wake();
    });
    socket.on('end', () => {
      this.ended = true;
      this.wake();
    });
    socket.on('close', () => {
      this.ended = true;
      this.wake();
    });
    socket.on('error', (err) => {
      this.failure = err;
      this.wake();
    });
  }

  /** Next header line parsed as JSON, or null at end of stream. */
  async readJson<T>(): Promise<T | null> {
    for (;;) {
      let offset = 0;
      for (const c of this.chunks) {
        const nl = c.indexOf(10);
        if (nl >= 0) {
          const line = this.take(offset + nl + 1)
            .toString('utf8')
            .slice(0, -1);
          return JSON.parse(line) as T;
        }
        offset += c.length;
      }
      if (this.failure) throw this.failure;
      if (this.ended) return null;
      await this.wait();
    }
  }

  /** Exactly n bytes; throws when the stream ends first. */
  async readBytes(n: number): Promise<Buffer> {
    while (this.length < n) {
      if (this.failure) throw this.failure;
      if (this.ended) throw new Error('connection closed in the middle of a payload');
      await this.wait();
    }
    return this.take(n);
  }

  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.length);
    const head = all.subarray(0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length ? [rest] : [];
    this.length = rest.length;
    return head;
  }

  private wait(): Promise<void> {
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }
}

export function writeJson(socket: Socket, value: unknown): void {
  socket.write(JSON.stringify(value) + '\n');
}
