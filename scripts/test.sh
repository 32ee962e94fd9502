#!/usr/bin/env bash
# The test suite and its slices: `npm test` runs every slice; `npm run test:<slice>` one of them.
#   unit     pure rules and small parts, no server (test/unit)
#   http     the app in memory through inject: /v1, the management API, embeds, share links, collection (test/http)
#   engines  DuckDB and ClickHouse, the stores' contract suites on every implementation, upgrades of old data dirs (test/engines, test/contract, test/upgrades)
#   ingest   imports, the command line, DNS (test/ingest, test/cli, test/dns)
#   web      the dashboard's code and the pages in Chromium (test/web)
#   scale    whole servers on PostgreSQL + Redis + ClickHouse: the HTTP suite again, faults, several processes (test/stack)
# Files run three at a time (node --test), the slowest first, so that the run does not end on one long
# file started last. A test file in no slice fails the run: every test belongs somewhere.
set -euo pipefail
cd "$(dirname "$0")/.."

declare -A SLICES=(
  [unit]="test/unit"
  [http]="test/http"
  [engines]="test/engines test/contract test/upgrades"
  [ingest]="test/ingest test/cli test/dns"
  [web]="test/web"
  [scale]="test/stack"
)
ORDER=(unit http engines ingest web scale)

# The slowest files of a whole run (test-results/durations.tsv of a run here, 2026-11-28: 100 to 530 s
# each, a third of the run's file-seconds): started first, those on ClickHouse between the others so the
# two shards do not serve three heavy files at once.
SLOW_FIRST=(
  test/contract/event-store.clickhouse.test.ts
  test/stack/http-suite-1.test.ts
  test/web/dashboard-pages.test.ts
  test/engines/clickhouse-analytics-engine.test.ts
  test/stack/http-suite-2.test.ts
  test/engines/live-days.test.ts
  test/stack/http-suite-3.test.ts
  test/engines/clickhouse-sessions.test.ts
  test/contract/event-store.test.ts
  test/engines/clickhouse-conformance.test.ts
  test/ingest/demo.test.ts
  test/engines/clickhouse-actions-rollup.test.ts
)

wanted=("$@")
[ ${#wanted[@]} -eq 0 ] && wanted=("${ORDER[@]}")

dirs=()
for slice in "${wanted[@]}"; do
  [ -n "${SLICES[$slice]+x}" ] || { echo "test.sh: unknown slice \"$slice\" (slices: ${ORDER[*]})" >&2; exit 2; }
  dirs+=(${SLICES[$slice]})
done

if [ $# -eq 0 ]; then
  all_dirs=()
  for slice in "${ORDER[@]}"; do all_dirs+=(${SLICES[$slice]}); done
  stray=$(comm -23 <(find test -name '*.test.ts' | sort) <(find "${all_dirs[@]}" -name '*.test.ts' | sort))
  if [ -n "$stray" ]; then echo "test.sh: test files in no slice (give their folder one in scripts/test.sh):" >&2; echo "$stray" >&2; exit 2; fi
fi

mapfile -t found < <(find "${dirs[@]}" -name '*.test.ts' | sort)
files=()
for f in "${SLOW_FIRST[@]}"; do
  for g in "${found[@]}"; do [ "$g" = "$f" ] && files+=("$f"); done
done
for g in "${found[@]}"; do
  case " ${SLOW_FIRST[*]} " in *" $g "*) ;; *) files+=("$g") ;; esac
done

# Each file's wall time, for SLOW_FIRST: test-results/durations.tsv, slowest first, once the run ends.
mkdir -p test-results
export FOOTFALL_TEST_DURATIONS="$PWD/test-results/durations.unsorted"
rm -f "$FOOTFALL_TEST_DURATIONS"
status=0
node --import tsx --import ./test/fast-check-limits.ts --import ./test/file-durations.ts --test \
  --test-concurrency="${FOOTFALL_TEST_CONCURRENCY:-3}" --test-reporter=spec "${files[@]}" || status=$?
[ -f "$FOOTFALL_TEST_DURATIONS" ] && sort -rn "$FOOTFALL_TEST_DURATIONS" >test-results/durations.tsv && rm -f "$FOOTFALL_TEST_DURATIONS"
exit "$status"
