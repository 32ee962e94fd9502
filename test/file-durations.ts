// Preloaded into every test file by scripts/test.sh: when FOOTFALL_TEST_DURATIONS names a file, each test
// file's process appends one line to it as it exits: its wall time in seconds, tab, the test file. The
// runner's own report cannot say this (it reports a file's events only once the files before it are
// done), and scripts/test.sh starts the slowest files first from it (test-results/durations.tsv).
import fs from 'node:fs';
import path from 'node:path';

const out = process.env.FOOTFALL_TEST_DURATIONS;
const file = process.argv[1];
if (out && file?.endsWith('.test.ts')) {
  process.on('exit', () => {
    // one short line, appended at once: files ending together do not interleave
    fs.appendFileSync(out, `${process.uptime().toFixed(1)}\t${path.relative(process.cwd(), file)}\n`);
  });
}
