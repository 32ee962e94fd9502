// Response compression: br or gzip, as the client's Accept-Encoding prefers, for bodies past a small
// threshold (below it the headers outweigh the saving). Registered before the routes: the plugin
// hooks each route as it is added.
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

export const COMPRESSION_THRESHOLD_BYTES = 1024;

export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    encodings: ['br', 'gzip'],
    threshold: COMPRESSION_THRESHOLD_BYTES,
    // The API takes no request bodies: nothing to inflate.
    globalDecompression: false,
  });
}
