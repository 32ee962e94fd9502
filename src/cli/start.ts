// `npm start`: on an empty data dir, load the demo first and print its tokens; then serve
// (DESIGN 1). `footfall serve` itself never adds data.
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../config/config.js';
import { CONTROL_SQLITE_FILE } from '../control/open-control-plane.js';
import { demoText, runDemo } from './demo.js';
import { fail } from './output.js';
import { usePrivateFiles } from './private-files.js';

try {
  const config = loadConfig();
  usePrivateFiles(config.dataDir);
  const fresh = config.controlUrl === undefined && !fs.existsSync(path.join(config.dataDir, CONTROL_SQLITE_FILE));
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
