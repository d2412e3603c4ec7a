#!/bin/sh
# Installs the Debian package bench:ann reads: dataset-fashion-mnist (Fashion-MNIST as IDX uint8 in
# /usr/share/datasets/fashion-mnist/*.gz, the ann-benchmarks fashion-mnist-784-euclidean set).
# Uses sudo only when not root; skips (exit 0, with a note) when apt-get is unavailable, in which
# case the bench stops with a message naming the package.
set -u
if ls /usr/share/datasets/fashion-mnist/*.gz >/dev/null 2>&1; then
  echo "ann-deps: dataset-fashion-mnist already present" >&2
  exit 0
fi
need="dataset-fashion-mnist"
# shellcheck disable=SC2086
exec sh "$(dirname "$0")/../scripts/apt-install.sh" ann-deps $need
