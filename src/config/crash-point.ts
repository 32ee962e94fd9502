// Crash tests only: FOOTFALL_TEST_CRASH_AT=<point>[:<n>] ends this process with SIGKILL (what kill -9
// does: no handler, no cleanup, no flush) the n-th time (default the first) the code passes that point,
// so a test stops a backup or a restore at a chosen step rather than by timing (test/cli/backup-crash.test.ts).
// Unset, as it always is outside those tests, a point costs one comparison. The points: backup-file (the
// server, or a backup without one, has copied one more file of the snapshot), backup-snapshot, backup-hashed
// (one more file hashed), backup-manifest (manifest.json written, the directory not yet renamed),
// restore-file (one more file copied), restore-verified (the copy checked, not yet renamed).
const wanted = parse(process.env.FOOTFALL_TEST_CRASH_AT);
let passed = 0;

function parse(raw: string | undefined): { point: string; at: number } | null {
  if (raw === undefined || raw === '') return null;
  const m = /^([a-z-]+)(?::(\d+))?$/.exec(raw);
  if (!m) throw new Error(`FOOTFALL_TEST_CRASH_AT must be <point>[:<n>], got "${raw}"`);
  return { point: m[1], at: m[2] === undefined ? 1 : Number(m[2]) };
}

/** Passes `point`: the process dies here when FOOTFALL_TEST_CRASH_AT names it (and this is its n-th pass). */
export function crashPoint(point: string): void {
  if (wanted === null || wanted.point !== point) return;
  if (++passed < wanted.at) return;
  process.kill(process.pid, 'SIGKILL');
}
