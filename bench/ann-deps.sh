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
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ann-deps: apt-get unavailable; missing: $need" >&2
  exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo -n"; else
    echo "ann-deps: not root and no sudo; missing: $need" >&2
    exit 0
  fi
fi
echo "ann-deps: installing $need" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y --no-install-recommends $need >&2 || { $SUDO apt-get update >&2 && $SUDO apt-get install -y --no-install-recommends $need >&2; } || {
  echo "ann-deps: apt-get install failed; missing: $need" >&2
  exit 0
}
exit 0
