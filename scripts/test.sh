#!/usr/bin/env bash
# npm test: type-check, then every test tier. The image tier (podman build + run) takes
# minutes; it runs under CI=true or JUBE_R_TEST_IMAGE=1 and is reported as not run otherwise.
# Under CI=true (or JUBE_R_BENCH=1) `npm run bench` follows.
set -euo pipefail
cd "$(dirname "$0")/.."

npx tsc --noEmit -p tsconfig.json

projects=(--project unit --project runner --project integration)
if [ "${CI:-}" = "true" ] || [ "${JUBE_R_TEST_IMAGE:-0}" = "1" ]; then
  projects+=(--project image)
else
  echo "test: image tier not run (set JUBE_R_TEST_IMAGE=1 or CI=true to include it)"
fi

report=$(mktemp -t jube-r-vitest.XXXXXX.json)
trap 'rm -f "$report"' EXIT
status=0
npx vitest run "${projects[@]}" --reporter=default --reporter=json --outputFile.json="$report" "$@" || status=$?

# CI also runs the benchmark (README says so), so its numbers are in every CI log; a benchmark
# that crashes fails the run, a slow one does not.
if [ "$status" -eq 0 ] && { [ "${CI:-}" = "true" ] || [ "${JUBE_R_BENCH:-0}" = "1" ]; }; then
  npm run --silent bench || status=$?
fi
# A plain closing line CI can read whatever the runner's own summary looks like.
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const skipped = r.numPendingTests + r.numTodoTests;
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed` + (skipped ? `, ${skipped} skipped` : ""));
' "$report" 2>/dev/null || true
exit "$status"
