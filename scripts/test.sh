#!/usr/bin/env bash
# npm test: type-check, then every test tier. The image tier (podman build + run) takes
# minutes; it runs under CI=true or JUBE_R_TEST_IMAGE=1 and is reported as not run otherwise.
# Under CI=true (or JUBE_R_BENCH=1) `npm run bench` follows.
# JUBE_R_TEST_LOAD=N keeps N busy loops running beside the whole run (N=2 saturates this
# machine's two cores): no test's verdict may depend on an idle machine, and this shows it.
set -euo pipefail
cd "$(dirname "$0")/.."

report=$(mktemp -t jube-r-vitest.XXXXXX.json)
prebuild_log=$(mktemp -t jube-r-image-prebuild.XXXXXX.log)
prebuild=""
load_pids=()
started=$(date +%s)
cleanup() {
  if [ -n "$prebuild" ]; then kill -- "-$prebuild" 2>/dev/null || true; fi
  for pid in "${load_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -f "$report" "$prebuild_log"
}
trap cleanup EXIT

load="${JUBE_R_TEST_LOAD:-0}"
if ! [[ "$load" =~ ^[0-9]+$ ]]; then echo "test: JUBE_R_TEST_LOAD must be a count of busy loops, got '$load'" >&2; exit 2; fi
for ((i = 0; i < load; i++)); do
  # Same priority as the tests: competition, not background noise.
  sh -c 'while :; do :; done' &
  load_pids+=($!)
done
if [ "$load" -gt 0 ]; then echo "test: $load busy loops run beside the suite (JUBE_R_TEST_LOAD)"; fi

projects=(--project unit --project runner --project integration)
if [ "${CI:-}" = "true" ] || [ "${JUBE_R_TEST_IMAGE:-0}" = "1" ]; then
  projects+=(--project image)
  # The image tier runs last; its first build on a fresh machine (apt inside the image) takes
  # minutes, mostly waiting on the archive, so it starts now beside the other tiers. The image
  # tests build again (scripts/image-build.sh takes a lock), which then takes seconds from the
  # layer cache; a failed prebuild shows up there, with its log.
  setsid nice -n 10 bash scripts/image-build.sh >"$prebuild_log" 2>&1 &
  prebuild=$!
else
  echo "test: image tier not run (set JUBE_R_TEST_IMAGE=1 or CI=true to include it)"
fi

npx tsc --noEmit -p tsconfig.json
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
echo "test: $(( $(date +%s) - started )) s$([ "$load" -gt 0 ] && echo " with $load busy loops")"
exit "$status"
