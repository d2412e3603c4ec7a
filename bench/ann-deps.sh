#!/bin/sh
# Installs the Debian packages bench:ann reads: dataset-fashion-mnist (Fashion-MNIST as IDX uint8 in
# /usr/share/datasets/fashion-mnist/*.gz, the ann-benchmarks fashion-mnist-784-euclidean set) and wrk
# (the load generator of its service part). Uses sudo only when not root; skips (exit 0, with a
# note) when apt-get is unavailable, in which case the bench stops with a message naming the
# dataset's package, or reports the wrk runs as null with a note.
set -u
need=""
ls /usr/share/datasets/fashion-mnist/*.gz >/dev/null 2>&1 || need="dataset-fashion-mnist"
command -v wrk >/dev/null 2>&1 || need="$need wrk"
if [ -z "$need" ]; then
  echo "ann-deps: dataset-fashion-mnist and wrk already present" >&2
  exit 0
fi
# shellcheck disable=SC2086
exec sh "$(dirname "$0")/../scripts/apt-install.sh" ann-deps $need
