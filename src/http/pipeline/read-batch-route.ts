// The read batches of the pages that read the read API itself: a share link's (GET
// /share/<slug>/api/reads, its reads below the link's prefix with its cookie) and the embed page's (GET
// /embed/api/reads, its reads of /v1 with its bearer). Errors in the read API's envelope. The batch
// request is admitted by the strategy its reads are (a gone link, a locked one without its cookie, a
// missing, forged, expired or revoked token: refused, no read made), then neither counted in a rate
// window nor metered: each of its reads is, exactly as it would be alone. Kept out of /openapi.json:
// a transport of the embed and share pages, not a read of the contract.
import type { FastifyInstance } from 'fastify';
import { invalidParams } from '../../domain/errors.js';
import type { AppDeps } from '../../services/deps.js';
import type { AuthStrategy } from './auth-strategy.js';
import type { AnyRoute } from './define-route.js';
import { readBatchMembers, streamReads, type ReadBatchTarget } from './read-batch-stream.js';

export interface ReadBatchOptions {
  /** the route's url in its scope */
  url: string;
  /** admits the batch request as it admits each of its reads */
  strategy: AuthStrategy;
  /** the read routes a member of r may name */
  routes: readonly AnyRoute[];
  /** where the reads are made: the prefix the request came in under, and its credential */
  target: (params: Record<string, string>) => ReadBatchTarget;
}

export function registerReadBatch(scope: FastifyInstance, deps: AppDeps, options: ReadBatchOptions): void {
  const paths = new Set(options.routes.map((r) => r.url));
  const notARead = (index: number) =>
    invalidParams(
      `Invalid query parameter r.${index}: it must be the path and query of a read, e.g. /v1/reports/overview?from=...; the reads are ${[...paths].join(', ')}.`,
      {
        parameter: `r.${index}`,
      },
    );
  scope.route({
    method: 'GET',
    url: options.url,
    config: { strategy: options.strategy.name },
    schema: { hide: true, security: options.strategy.security.map((s) => ({ ...s })) },
    onRequest: async (request, reply) => {
      await options.strategy.admit(request, reply, { deps, arrivedAt: deps.clock.now() });
    },
    handler: async (request, reply) => {
      const reads = readBatchMembers(request.query, paths, (parameter, message) => invalidParams(message, { parameter }), notARead);
      return reply.send(streamReads(request, reply, reads, options.target(request.params as Record<string, string>)));
    },
  });
}
