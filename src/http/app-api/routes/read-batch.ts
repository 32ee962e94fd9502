// Several of the dashboard's reads in one request (read-batch-stream.ts): each made as the same request
// sent on its own would be, with this request's cookie: the same session check, rate window, role,
// parameters, cache and answer.
import { invalidField } from '../../../domain/manage-errors.js';
import { checkedReads, READ_BATCH_MEDIA_TYPE, ReadBatchQuery, streamReads } from '../../pipeline/read-batch-stream.js';
import { DASHBOARD_QUERY_PATHS, DASHBOARD_READ_PATHS } from '../dashboard-reads.js';
import { APP_API_PREFIX } from '../app-api-prefix.js';
import { defineAppRoute } from '../define-app-route.js';
import { ReadBatchLineSchema } from '../schemas.js';

// the GET twins, and the query API's POST twins (a member carries its JSON body in `body`)
const READ_PATHS = new Set([...DASHBOARD_READ_PATHS, ...DASHBOARD_QUERY_PATHS].map((p) => p.slice(APP_API_PREFIX.length)));

/** A member of `r` that is not a dashboard read (/v1/..., the twins under /app/api). */
const notARead = (index: number) =>
  invalidField(
    `r.${index}`,
    `Invalid query parameter r.${index}: it must be the path and query of a dashboard read below /app/api, e.g. /v1/reports/overview?site_id=...; the reads are ${[...READ_PATHS].join(', ')}.`,
  );

export const readBatchRoutes = [
  defineAppRoute({
    method: 'GET',
    url: '/reads',
    operationId: 'readBatch',
    summary: "Several of the dashboard's reads in one request, each answer streamed as it is ready (any signed-in person)",
    description:
      "`r` (repeated, at most 32): the path and query of a dashboard read below /app/api (`/v1/reports/overview?site_id=...`, URL-encoded), or a query API read as its path with its JSON body in `body` (`/api/v2/query?body=...`, made as that POST, with this request's X-CSRF-Token). Answers `application/x-ndjson`: one line per read, in the order they finish, `{i, status, retry_after?, body}`, `i` the read's position in `r`, `status` and `body` what the read sent on its own would answer (200 and its JSON, or its error envelope). Each read counts against the session's rate window as it would alone; so does this request. For a page over HTTP/1.1, whose browser opens six connections to one origin: the reads run side by side on one.",
    tag: 'Sites',
    auth: 'session',
    // the schema every batch's r is checked by (read-batch-stream.ts)
    query: ReadBatchQuery,
    status: 200,
    produces: READ_BATCH_MEDIA_TYPE,
    response: ReadBatchLineSchema,
    handler: async ({ request, reply, query }) =>
      streamReads(request, reply, checkedReads(query.r, READ_PATHS, notARead), { prefix: APP_API_PREFIX, credential: 'cookie' }),
  }),
];
