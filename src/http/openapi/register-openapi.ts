// The read API's OpenAPI 3.1 document (GET /openapi.json), generated from the same TypeBox schemas that
// validate and serialize, then finished for clients and the docs page (finish-document.ts).
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { finishDocument } from './finish-document.js';

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'footfall read API', version: '0' },
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An ff_live_ token secret' },
          embedToken: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description:
              'An embed token: a JWT (HS256, header kid = an embed key id) minted by your backend with the embed key secret, ' +
              'claims token_id (the parent API token), site_id, tenant_id (optional), iat, exp (at most 24 h after iat), routes (optional). ' +
              'Reads as its parent token, sealed to its site and tenant.',
          },
        },
      },
    },
    transformObject: (doc) => finishDocument((doc as { openapiObject: Parameters<typeof finishDocument>[0] }).openapiObject),
  });
  // Served without auth: it describes the contract, not any workspace's data. Built on first ask, from
  // every route registered by then (the plugin above sees each as it is added, so this goes first).
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
