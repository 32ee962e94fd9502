// Preloaded into every test file (package.json's test script). A property that fails shrinks its
// counterexample, and when every run talks to a database that can take very long: a ClickHouse
// cluster property once shrank for 33 minutes in CI, most of the run's 60-minute limit. So every
// property is bounded at 15 minutes (the longest passing one takes about 4 here): a failure found
// by then is reported with the counterexample shrunk so far (its seed and path replay it, shrinking
// further), and a property still running then fails rather than passing on fewer runs.
import fc from 'fast-check';

fc.configureGlobal({ interruptAfterTimeLimit: 15 * 60_000, markInterruptAsFailure: true });
