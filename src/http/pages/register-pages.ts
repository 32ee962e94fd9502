// The pages of the browser half: the docs page (/docs), the dashboard's files (/app/assets/) and the
// shell of each of its page paths (/app/...), all from the package.
import type { FastifyInstance } from 'fastify';
import { registerAppPages } from './app-pages.js';
import { registerDocsPage } from './docs-page.js';
import { registerWebAssets, type WebBundle } from './web-assets.js';

export async function registerPages(app: FastifyInstance, bundle: () => WebBundle | null): Promise<void> {
  await registerDocsPage(app);
  registerWebAssets(app, bundle);
  registerAppPages(app, bundle);
}
