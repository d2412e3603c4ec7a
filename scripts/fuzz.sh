#!/usr/bin/env bash
# npm run fuzz [-- SECONDS [TARGET...]]: builds the libFuzzer targets (native/test/fuzz/) with clang
# into build-fuzz/ and runs each TARGET (default: all) for SECONDS (default 600), as many at once as
# there are cores. Each starts from its checked-in seeds and regression inputs
# (native/test/fuzz/corpus/TARGET/) plus what earlier runs found (build-fuzz/corpus/TARGET/, where
# new inputs go). A crash, a sanitizer report or a broken contract is saved under
# build-fuzz/crashes/TARGET/ and printed with the command that reproduces it; the run then fails.
# FUZZ_SEED fixes libFuzzer's random seed. Needs Debian's clang and libclang-rt-14-dev.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build-fuzz"
seconds="${1:-600}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=($(cd "$root/native/test/fuzz" && ls fuzz_*.cc | sed 's/\.cc$//'))

# Ninja when the machine has it (faster incremental builds), cmake's default generator otherwise.
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
CC=clang CXX=clang++ cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Debug -DTESSERA_FUZZ=ON >/dev/null
cmake --build "$build" --parallel --target "${targets[@]}"

# One target: runs it, and on a crash prints the saved input and the command that reproduces it.
run() {
  local target="$1" corpus="$build/corpus/$1" crashes="$build/crashes/$1" log="$build/logs/$1.log"
  mkdir -p "$corpus" "$crashes" "$(dirname "$log")"
  if "$build/$target" "$corpus" "$root/native/test/fuzz/corpus/$target" -dict="$root/native/test/fuzz/tessera.dict" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
    ${FUZZ_SEED:+-seed="$FUZZ_SEED"} -artifact_prefix="$crashes/" >"$log" 2>&1; then
    echo "$target: $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') inputs in ${seconds}s, no crash"
    return 0
  fi
  tail -n 60 "$log"
  for input in $(sed -n 's/.*Test unit written to //p' "$log"); do
    echo "$target: FAILED on $input (as JSON: $(node -p 'JSON.stringify(require("fs").readFileSync(process.argv[1], "latin1"))' "$input"))"
    echo "  reproduce: $build/$target $input"
  done
  return 1
}

failed=0
jobs=0
for target in "${targets[@]}"; do
  run "$target" &
  if (( ++jobs >= $(nproc) )); then
    wait -n || failed=1
    (( jobs-- ))
  fi
done
while (( jobs-- > 0 )); do wait -n || failed=1; done
if [ "$failed" -ne 0 ]; then
  echo "fuzz: a target failed; its log is in $build/logs/"
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, no crash"
