#!/usr/bin/env bash
# npm run test:asan: builds the core, the addon and the native self-tests with ASan + UBSan
# (TESSERA_SANITIZE=ON) into build-asan/, leaving the Release addon in build/ alone, then runs the
# native self-tests and a slice of the library and HTTP tests against that addon. Any sanitizer
# report fails the run: the process that hit it halts, failing its test, and the run fails on the
# report itself too: ASan's are written under build-asan/sanitizer-reports/ and printed at the end,
# UBSan's (g++'s UBSan ignores log_path next to ASan) are found in the test output.
# Extra arguments replace the slice (paths of compiled test files, e.g. dist/test/core/writes.test.js).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
build="$root/build-asan"
reports="$build/sanitizer-reports"

node node_modules/cmake-js/bin/cmake-js compile --debug --out "$build" --CDTESSERA_SANITIZE=ON --CDTESSERA_NATIVE_TESTS=ON
node node_modules/typescript/bin/tsc -p .

# Parsing, writes, vector and text search (inline and on the query threads), filters, the records
# cursor, the stemmer and every C++ self-test.
slice=(
  dist/test/native/selftests.test.js
  dist/test/native/stemmer.test.js
  dist/test/core/writes.test.js
  dist/test/core/search.test.js
  dist/test/core/dispatch.test.js
  dist/test/filters/predicates.test.js
  dist/test/text/bm25.test.js
  dist/test/http/bad_input.test.js
  dist/test/http/fuzz.test.js
  dist/test/http/routes.test.js
)
[ $# -gt 0 ] && slice=("$@")

rm -rf "$reports"
mkdir -p "$reports"
export TESSERA_ADDON_PATH="$build/Debug/tessera.node" TESSERA_NATIVE_BUILD="$build"
# node itself is not instrumented, so the ASan runtime must be loaded before it; node's own
# allocations are never freed at exit by design, hence no leak detection.
export LD_PRELOAD="$(g++ -print-file-name=libasan.so) $(g++ -print-file-name=libubsan.so)"
export ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:abort_on_error=1:log_path=$reports/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
status=0
node node_modules/ava/entrypoints/cli.mjs "${slice[@]}" 2>&1 | tee "$reports/ava-output.txt" || status=$?
unset LD_PRELOAD

asan_reports=("$reports"/asan.*)
if [ -e "${asan_reports[0]}" ]; then
  for report in "${asan_reports[@]}"; do
    echo "=== $report"
    cat "$report"
  done
  echo "test:asan: AddressSanitizer reports above (kept in $reports)"
  exit 1
fi
if grep -q 'runtime error:' "$reports/ava-output.txt"; then
  echo "test:asan: UndefinedBehaviorSanitizer reported 'runtime error:' in the test output above"
  exit 1
fi
[ "$status" -eq 0 ] && echo "test:asan: no sanitizer reports"
exit "$status"
