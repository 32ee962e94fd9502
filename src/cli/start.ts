// `npm start`: on an empty data dir, load the demo first and print its tokens; then serve
// (DESIGN 1). `footfall serve` itself never adds data.
import { ConfigError, loadConfig } from '../config/config.js';
import { hasControlPlane } from '../container.js';
import { demoText, runDemo } from './demo.js';
import { fail } from './output.js';

try {
  const config = loadConfig();
  const fresh = !hasControlPlane(config);
  if (fresh) {
    process.stderr.write(`footfall: ${config.dataDir} is empty; loading the demo first…\n`);
    const result = await runDemo(config, { seed: 1, days: 90, progress: process.stderr.isTTY ? process.stderr : null });
    process.stdout.write(demoText(result) + '\n\n');
  }
  // Loaded late so a server module still being written cannot stop the demo from loading.
  const { startServer, closeOnSignals } = await import('../main.js');
  const server = await startServer(config);
  closeOnSignals(server);
} catch (err) {
  fail(false, err instanceof ConfigError ? Object.assign(err, { exitCode: 2 }) : err);
}
