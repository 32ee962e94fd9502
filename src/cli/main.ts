// The `footfall` command line. Each command family registers itself from its own file, listed below.
// A registration loads only commander and light modules: what a command needs to run (stores, the
// server, the import pipeline) is imported by its action, so `footfall --help` answers at once.
import { Command, CommanderError } from 'commander';
import { registerServe } from './serve.js';
import { registerCatalogCommands } from './catalog-commands.js';
import { registerImport } from './import.js';
import { registerDemo } from './demo.js';
import { registerPurge, registerUsage } from './lifecycle-commands.js';
import { registerStats } from './stats-command.js';
import { registerBackup, registerRestore } from './backup-commands.js';
import { fail } from './output.js';

/** Every command family, in the order `footfall --help` lists them. */
const COMMANDS: ReadonlyArray<(program: Command) => void> = [
  registerServe,
  registerCatalogCommands,
  registerImport,
  registerDemo,
  registerPurge,
  registerUsage,
  registerStats,
  registerBackup,
  registerRestore,
];

const program = new Command('footfall')
  .description('footfall: privacy-first web analytics read API')
  .exitOverride()
  .showHelpAfterError(false)
  .configureOutput({ writeErr: (s) => process.stderr.write(s) });

for (const register of COMMANDS) register(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // commander already printed its message; help and version exit 0.
    process.exitCode = err.exitCode === 0 ? 0 : 2;
  } else {
    fail(process.argv.includes('--json'), err);
  }
}
