// GET /app/assets/<file>: the browser half's files, built by `npm run build:web` into dist/web with
// content-hashed names (a name never changes meaning, so browsers keep it a year without asking) and a
// .br and .gz beside each, sent as they are to a client that accepts them. Only files the build's
// manifest names are served; they are read once, on first use.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../domain/errors.js';

export const WEB_ASSETS_PREFIX = '/app/assets';
/** Where the build writes (scripts/build-web.ts): the package's dist/web. */
export const DEFAULT_WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'dist', 'web');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

interface Asset {
  type: string;
  identity: Buffer;
  br: Buffer | null;
  gzip: Buffer | null;
}

export interface WebBundle {
  /** logical name (main.js, main.css, icon.svg) -> URL path of its hashed file */
  urls: Record<string, string>;
  assets: ReadonlyMap<string, Asset>;
}

const loaded = new Map<string, WebBundle | null>();

/** The built bundle of `dir`, or null when it was not built (the pages then say how to build it). */
export function loadWebBundle(dir = DEFAULT_WEB_DIR): WebBundle | null {
  if (loaded.has(dir)) return loaded.get(dir)!;
  let bundle: WebBundle | null = null;
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { entries: Record<string, string> };
    const assets = new Map<string, Asset>();
    const urls: Record<string, string> = {};
    const optional = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file) : null);
    for (const [logical, file] of Object.entries(manifest.entries)) {
      const full = path.join(dir, path.basename(file));
      assets.set(path.basename(file), {
        type: TYPES[path.extname(file)] ?? 'application/octet-stream',
        identity: fs.readFileSync(full),
        br: optional(`${full}.br`),
        gzip: optional(`${full}.gz`),
      });
      urls[logical] = `${WEB_ASSETS_PREFIX}/${path.basename(file)}`;
    }
    bundle = { urls, assets };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  loaded.set(dir, bundle);
  return bundle;
}

/** The encoding to send of the two kept, by Accept-Encoding: br before gzip (q=0 refuses one; * takes any). */
export function preferredEncoding(header: string | undefined): 'br' | 'gzip' | null {
  const accepted = new Set<string>();
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q && Number(q.slice(2)) === 0) continue;
    accepted.add(name);
  }
  if (accepted.has('br') || accepted.has('*')) return 'br';
  if (accepted.has('gzip')) return 'gzip';
  return null;
}

export function registerWebAssets(app: FastifyInstance, bundle: () => WebBundle | null): void {
  app.get<{ Params: { file: string } }>(
    `${WEB_ASSETS_PREFIX}/:file`,
    { schema: { hide: true }, compress: false },
    async (request, reply) => {
      const asset = bundle()?.assets.get(request.params.file);
      if (!asset) throw new ApiError('NOT_FOUND', 'No such file of the dashboard; its names change with each release, so reload the page.');
      const encoding = preferredEncoding(request.headers['accept-encoding']);
      const body = (encoding && asset[encoding]) || asset.identity;
      reply
        .type(asset.type)
        .header('Cache-Control', 'public, max-age=31536000, immutable')
        .header('Vary', 'Accept-Encoding')
        .header('X-Content-Type-Options', 'nosniff');
      if (body !== asset.identity) reply.header('Content-Encoding', encoding);
      return reply.send(body);
    },
  );
}
