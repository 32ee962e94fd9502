// Suites that need a live service (PostgreSQL, Redis, ClickHouse) run when the FOOTFALL_TEST_*
// variables `scripts/services.sh start` prints are set. Without them each such test is listed as
// skipped, saying what is missing. Where the services must be there, a missing one is an error
// instead: the test file fails at once, naming it. They must be there in CI (CI set) and whenever
// .ci/run has started them (it exports FOOTFALL_TEST_SERVICES=required).
import { test } from 'node:test';

export function servicesRequired(): boolean {
  return Boolean(process.env.CI) || process.env.FOOTFALL_TEST_SERVICES === 'required';
}

/** `reason` for a skip, or (where the services must run) an error naming it. */
export function unavailable(reason: string): string {
  if (servicesRequired())
    throw new Error(
      `${reason}: the services must run here (${process.env.CI ? 'CI is set' : 'FOOTFALL_TEST_SERVICES=required'}); scripts/services.sh start starts them and prints the variables`,
    );
  return reason;
}

/** Why a test needing the variables `vars` cannot run (false: it can). */
export function needs(...vars: string[]): string | false {
  const missing = vars.filter((v) => !process.env[v]);
  if (missing.length === 0) return false;
  return unavailable(`${missing.join(', ')} not set (scripts/services.sh start prints ${missing.length > 1 ? 'them' : 'it'})`);
}

/**
 * node:test's `test`, or, with a reason, one that registers every test it is given as skipped for
 * that reason (its body never runs): a suite that cannot run still lists each of its tests.
 */
export function skippable(skip: string | false | undefined): typeof test {
  if (!skip) return test;
  const skipped = (name: string, options?: unknown) =>
    test(name, { ...(typeof options === 'object' && options !== null ? options : {}), skip });
  return skipped as unknown as typeof test;
}
