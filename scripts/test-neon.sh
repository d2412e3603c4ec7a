#!/usr/bin/env bash
# Cross-builds the kernel self-test for arm64 and runs it under qemu, so the NEON kernels are
# checked against the double reference on an x86 host. Needs Debian's g++-aarch64-linux-gnu and
# qemu-user (installed by .ci/run). On an arm64 host it builds and runs natively.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
srcs=("$root/native/test/kernels_test.cc" "$root/native/src/kernels/kernels.cc" "$root/native/src/kernels/kernels_scalar.cc" "$root/native/src/kernels/kernels_neon.cc")
if [ "$(uname -m)" = "aarch64" ]; then
  g++ -std=c++20 -O2 -I"$root/native/include" "${srcs[@]}" -o "$out/kernels_test"
  "$out/kernels_test"
else
  aarch64-linux-gnu-g++ -std=c++20 -O2 -static -I"$root/native/include" "${srcs[@]}" -o "$out/kernels_test"
  qemu-aarch64 "$out/kernels_test"
fi
