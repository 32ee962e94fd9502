// The OpenAPI 3.1 document, generated from the same TypeBox schemas that validate and serialize.
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { ErrorEnvelope } from './schemas/common.js';

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'footfall read API',
        version: '1.0.0',
        description:
          'Read-only HTTP and JSON interface to privacy-first web analytics. Every /v1 operation is a GET that needs ' +
          '`Authorization: Bearer <token>`. Every response carries X-Request-Id; authenticated responses carry ' +
          'X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset. Errors use the envelope ' +
          '`{error: {code, message, request_id, details?}}`.',
      },
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'ff_live_ token secret' } },
        schemas: { ErrorEnvelope: ErrorEnvelope as unknown as Record<string, unknown> },
      },
    },
  });
}

/** Serves the document without auth: it describes the contract, not any workspace's data. */
export function registerOpenApiRoute(app: FastifyInstance): void {
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
