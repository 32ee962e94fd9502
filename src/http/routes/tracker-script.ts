// GET /js/script.js: the first-party tracker (http/assets/tracker-script.js, README "Live
// collection"). Outside /v1 and outside the OpenAPI document, like POST /api/event it feeds.
import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';

export const TRACKER_SCRIPT_PATH = '/js/script.js';
const source = fs.readFileSync(new URL('../assets/tracker-script.js', import.meta.url), 'utf8');

export function registerTrackerScript(app: FastifyInstance): void {
  app.get(TRACKER_SCRIPT_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply
      .type('application/javascript; charset=utf-8')
      // an hour: a new release reaches every page within one, and pages do not ask on every view
      .header('Cache-Control', 'public, max-age=3600')
      .header('Access-Control-Allow-Origin', '*')
      .send(source),
  );
}
