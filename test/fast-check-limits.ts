// Preloaded into every test file (package.json's test script). A property that fails shrinks its
// counterexample, and when every run talks to a database that can take very long: a ClickHouse
// cluster property once shrank for 33 minutes in CI, most of the run's 60-minute limit. So every
// property is bounded at 15 minutes (the longest passing one takes about 4 here; the bound grows with
// FOOTFALL_PROPERTY_RUNS_FACTOR): a failure found by then is reported with the counterexample shrunk
// so far (its seed and path replay it, shrinking further), and a property still running then fails
// rather than passing on fewer runs.
// Every property searches anew on each run: one seed per test file and run, printed with any failure
// and taken from FOOTFALL_PROPERTY_SEED when set; 100 runs unless the property says otherwise, times
// FOOTFALL_PROPERTY_RUNS_FACTOR (test/helpers/property-runs.ts).
import fc from 'fast-check';
import { propertySeed, RUNS_FACTOR, runs } from './helpers/property-runs.js';

fc.configureGlobal({
  interruptAfterTimeLimit: 15 * 60_000 * Math.max(1, RUNS_FACTOR),
  markInterruptAsFailure: true,
  seed: propertySeed,
  numRuns: runs(100),
});
