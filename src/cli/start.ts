// `npm start`: on a store that holds no workspace, seed the demo catalog and print its tokens, serve at
// once, and load the demo traffic into the running server in the background, newest week first
// (docs/product.md §1; docs/decisions/store.md "`npm start` serves first"). Until it is loaded, reads
// of a demo site say so in dataFreshness. A start that died while loading finishes the load on the
// next start (re-imported events dedupe). Once listening, it prints where the dashboard is and how to
// get a token (and a new sign-in link of the demo owner when there is one), before any request is logged.
// `footfall serve` itself never adds data.
import fs from 'node:fs';
import path from 'node:path';
import { openControlStores } from '../container.js';
import { apiPolicyFor, hasApiAccess } from '../domain/plans.js';
import { systemClock } from '../domain/clock.js';
import { DEMO_OWNER_EMAIL, seedDemoCatalog, type DemoTraffic } from '../ingest/demo/seed-demo.js';
import { DemoLoad } from '../ingest/demo/load-demo.js';
import { issueLink } from '../services/people/links.js';
import { DEMO_LOADING_FILE, DEMO_MARKER_FILE, demoCatalogText, withSignInLink } from './demo.js';
import { commandConfig } from './options.js';
import { fail } from './output.js';
import { startBannerText, type StartBanner } from './start-banner.js';

try {
  const config = commandConfig({});
  const loadingFile = path.join(config.dataDir, DEMO_LOADING_FILE);
  const where = config.controlUrl !== undefined ? 'the shared control plane' : config.dataDir;
  let pending: DemoTraffic | null = null;
  const banner: StartBanner = { seeded: false };
  const control = await openControlStores(config);
  try {
    // Any command (even `workspace list`, or a serve that could not listen) creates the store: what
    // decides is whether it holds a workspace, not whether the folder is empty.
    const workspaces = await control.catalog.listWorkspaces();
    if (workspaces.length === 0) {
      process.stderr.write(`footfall: ${where} holds no workspace; seeding the demo and serving while its traffic loads…\n`);
      const seeded = await seedDemoCatalog({ catalog: control.catalog, people: control.people, seed: 1, days: 90, nowMs: Date.now() });
      if (seeded.result.owner) seeded.result.owner = await withSignInLink(control.people, config, seeded.result.owner);
      fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
      fs.writeFileSync(loadingFile, JSON.stringify(seeded.traffic) + '\n', { mode: 0o600 });
      pending = seeded.traffic;
      // Now, not once listening: the token secrets are shown only once, even if the port is taken.
      process.stdout.write(demoCatalogText(seeded.result) + '\n\n');
      banner.seeded = true;
      banner.apiWorkspaceId = seeded.result.workspaces.find((w) => hasApiAccess(apiPolicyFor(w.plan)))?.workspace_id;
    } else {
      process.stderr.write(
        `footfall: ${where} holds ${workspaces.length} workspace${workspaces.length === 1 ? '' : 's'}: serving them (the demo is seeded only into a store without any)\n`,
      );
      banner.apiWorkspaceId = workspaces.find((w) => hasApiAccess(apiPolicyFor(w.plan, w.apiPolicy)))?.id;
      const owner = await control.people.findUserByEmail(DEMO_OWNER_EMAIL);
      if (owner) {
        const link = await issueLink({ people: control.people, clock: systemClock, publicUrl: config.publicUrl }, owner.user, 'sign_in');
        banner.owner = { email: owner.user.email, signInUrl: link.url, expiresAt: link.expiresAt };
      }
      if (fs.existsSync(loadingFile)) {
        pending = JSON.parse(fs.readFileSync(loadingFile, 'utf8')) as DemoTraffic;
        process.stderr.write('footfall: an earlier start did not finish loading the demo traffic; loading the rest\n');
      }
    }
  } finally {
    await control.close();
  }
  const load = pending ? new DemoLoad(pending) : null;
  // Loaded late so a server module still being written cannot stop the demo from loading.
  const { startServer, closeOnSignals } = await import('../main.js');
  const server = await startServer(config, {
    overrides: load ? { analyticsNotes: (site) => load.notes(site) } : {},
    onListening: () => process.stdout.write('\n' + startBannerText(config, banner) + '\n\n'),
  });
  // A shutdown stops the demo's load before the stores close: the part under way is not stored (each
  // part is one import) and the next start loads it.
  closeOnSignals(
    load
      ? {
          ...server,
          close: async () => {
            await load.stop();
            return server.close();
          },
        }
      : server,
  );
  if (load) {
    const started = performance.now();
    load.run(server.container.catalog, server.container.events).then(
      ({ imported, stopped }) => {
        if (stopped)
          return server.app.log.info({ imported }, 'the demo traffic stopped loading with the server; the next start loads the rest');
        fs.writeFileSync(
          path.join(config.dataDir, DEMO_MARKER_FILE),
          JSON.stringify({ seed: load.traffic.seed, days: load.traffic.days, loaded_at: new Date().toISOString() }) + '\n',
        );
        fs.rmSync(loadingFile, { force: true });
        server.app.log.info({ imported, seconds: Math.round((performance.now() - started) / 100) / 10 }, 'demo traffic loaded');
      },
      (err) => server.app.log.error({ err }, 'loading the demo traffic failed; restart to try again'),
    );
  }
} catch (err) {
  fail(false, err);
}
