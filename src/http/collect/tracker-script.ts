// GET /js/script.js: the first-party tracker (http/collect/browser-tracker.js, README "Live
// collection"). Outside /v1, without a token, in the OpenAPI document under Collection beside the
// POST /api/event it feeds.
import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';

export const TRACKER_SCRIPT_PATH = '/js/script.js';
const source = fs.readFileSync(new URL('./browser-tracker.js', import.meta.url), 'utf8');

export function registerTrackerScript(app: FastifyInstance): void {
  const schema = {
    operationId: 'getTrackerScript',
    summary: 'The first-party tracker script',
    description:
      'A small script without cookies or storage. A page loads it with a script element: `defer`, `data-domain="example.com"`, ' +
      '`src="https://stats.example.com/js/script.js"`. ' +
      'It sends pageviews (on load and on client-side navigation), outbound clicks, file downloads, form submits and engaged time to POST /api/event. ' +
      'Attributes: data-domain, data-api, data-tenant-id, data-hash. Cached an hour.',
    tags: ['Collection'],
    response: { 200: { description: 'The script', content: { 'application/javascript': { schema: { type: 'string' } } } } },
  };
  app.get(TRACKER_SCRIPT_PATH, { schema }, async (_request, reply) =>
    reply
      .type('application/javascript; charset=utf-8')
      // an hour: a new release reaches every page within one, and pages do not ask on every view
      .header('Cache-Control', 'public, max-age=3600')
      .header('Access-Control-Allow-Origin', '*')
      .send(source),
  );
}
