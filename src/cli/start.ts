// `npm start`: on an empty data dir, seed the demo catalog and print its tokens, serve at once, and
// load the demo traffic into the running server in the background, newest week first (docs/product.md §1;
// docs/decisions.md (demo)). Until it is loaded, reads of a demo site say so in dataFreshness.
// A start that died while loading finishes the load on the next start (re-imported events dedupe).
// `footfall serve` itself never adds data.
import fs from 'node:fs';
import path from 'node:path';
import { hasControlPlane, openControlStores } from '../container.js';
import { seedDemoCatalog, type DemoTraffic } from '../ingest/demo/seed-demo.js';
import { DemoLoad } from '../ingest/demo/load-demo.js';
import { DEMO_MARKER_FILE, demoCatalogText, withSignInLink } from './demo.js';
import { commandConfig } from './options.js';
import { fail } from './output.js';

/** Present while the demo traffic is not fully loaded: what the load needs to run (again). */
const DEMO_LOADING_FILE = 'demo-loading.json';

try {
  const config = commandConfig({});
  const loadingFile = path.join(config.dataDir, DEMO_LOADING_FILE);
  let pending: DemoTraffic | null = null;
  if (!hasControlPlane(config)) {
    process.stderr.write(`footfall: ${config.dataDir} is empty; seeding the demo and serving while its traffic loads…\n`);
    const control = await openControlStores(config);
    try {
      const seeded = await seedDemoCatalog({ catalog: control.catalog, people: control.people, seed: 1, days: 90, nowMs: Date.now() });
      if (seeded.result.owner) seeded.result.owner = await withSignInLink(control.people, config, seeded.result.owner);
      fs.writeFileSync(loadingFile, JSON.stringify(seeded.traffic) + '\n', { mode: 0o600 });
      pending = seeded.traffic;
      process.stdout.write(demoCatalogText(seeded.result) + '\n\n');
    } finally {
      await control.close();
    }
  } else if (fs.existsSync(loadingFile)) {
    pending = JSON.parse(fs.readFileSync(loadingFile, 'utf8')) as DemoTraffic;
    process.stderr.write('footfall: an earlier start did not finish loading the demo traffic; loading the rest\n');
  }
  const load = pending ? new DemoLoad(pending) : null;
  // Loaded late so a server module still being written cannot stop the demo from loading.
  const { startServer, closeOnSignals } = await import('../main.js');
  const server = await startServer(config, { overrides: load ? { analyticsNotes: (site) => load.notes(site) } : {} });
  closeOnSignals(server);
  if (load) {
    const started = performance.now();
    load.run(server.container.catalog, server.container.events).then(
      ({ imported }) => {
        fs.writeFileSync(path.join(config.dataDir, DEMO_MARKER_FILE), JSON.stringify({ seed: load.traffic.seed, days: load.traffic.days, loaded_at: new Date().toISOString() }) + '\n');
        fs.rmSync(loadingFile, { force: true });
        server.app.log.info({ imported, seconds: Math.round((performance.now() - started) / 100) / 10 }, 'demo traffic loaded');
      },
      (err) => server.app.log.error({ err }, 'loading the demo traffic failed; restart to try again'),
    );
  }
} catch (err) {
  fail(false, err);
}
