// GET /docs: an interactive reference of the served OpenAPI document (Swagger UI, through
// @fastify/swagger-ui, whose files ship in node_modules: nothing is fetched from elsewhere). The
// document's description carries the error catalog, retry guidance and metering table.
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

export const DOCS_PREFIX = '/docs';

/**
 * The page may load and call only this server: Swagger UI's own files, the document, and the
 * operations a reader tries out. Its styles are partly inline; its scripts are files.
 */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "frame-ancestors 'self'",
].join('; ');

export async function registerDocsPage(app: FastifyInstance): Promise<void> {
  await app.register(swaggerUi, {
    routePrefix: DOCS_PREFIX,
    staticCSP: CSP,
    theme: { title: 'footfall read API' },
    uiConfig: {
      // No "Explore" bar: the page documents this server's document only.
      layout: 'BaseLayout',
      deepLinking: true,
      docExpansion: 'list',
      defaultModelsExpandDepth: 0,
      displayRequestDuration: true,
      tryItOutEnabled: false,
      persistAuthorization: false,
    },
  });
}
