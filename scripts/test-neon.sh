#!/usr/bin/env bash
# Cross-builds the kernel self-test for arm64 and runs it under qemu, so the NEON kernels are
# checked against the references on an x86 host. Needs Debian's g++-aarch64-linux-gnu and
# qemu-user (installed by .ci/run). On an arm64 host it builds and runs natively.
# The sdot family's unit gets its own -march, as in CMakeLists.txt. Under qemu the test runs twice:
# on `-cpu max` (has sdot, so both neon families are checked) and on a Cortex-A57 (ARMv8.0, no sdot:
# detection must leave neon-dotprod out).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
k="$root/native/src/kernels"
srcs=("$root/native/test/kernels_test.cc" "$k/kernels.cc" "$k/kernels_scalar.cc" "$k/kernels_neon.cc")
if [ "$(uname -m)" = "aarch64" ]; then
  g++ -std=c++20 -O2 -march=armv8.2-a+dotprod -I"$root/native/include" -c "$k/kernels_neon_dotprod.cc" -o "$out/dotprod.o"
  g++ -std=c++20 -O2 -I"$root/native/include" "${srcs[@]}" "$out/dotprod.o" -o "$out/kernels_test"
  "$out/kernels_test"
else
  aarch64-linux-gnu-g++ -std=c++20 -O2 -march=armv8.2-a+dotprod -I"$root/native/include" -c "$k/kernels_neon_dotprod.cc" -o "$out/dotprod.o"
  aarch64-linux-gnu-g++ -std=c++20 -O2 -static -I"$root/native/include" "${srcs[@]}" "$out/dotprod.o" -o "$out/kernels_test"
  for cpu in max cortex-a57; do
    echo "qemu-aarch64 -cpu $cpu"
    qemu-aarch64 -cpu "$cpu" "$out/kernels_test"
  done
fi
