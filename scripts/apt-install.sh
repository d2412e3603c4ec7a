#!/bin/sh
# sh scripts/apt-install.sh LABEL PACKAGE...: installs Debian packages for a deps script (the
# benches' and the cluster tests'), with sudo only when not root. It never fails: when it cannot
# install it says why on stderr, naming LABEL and the packages, and exits 0, so the caller reports
# what is missing its own way (a bench part as null, a test skipped locally and failed under CI).
set -u
label="$1"
shift
if ! command -v apt-get >/dev/null 2>&1; then
  echo "$label: apt-get unavailable; missing: $*" >&2
  exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo -n"; else
    echo "$label: not root and no sudo; missing: $*" >&2
    exit 0
  fi
fi
echo "$label: installing $*" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y -qq --no-install-recommends "$@" >&2 || { $SUDO apt-get update -qq >&2 && $SUDO apt-get install -y -qq --no-install-recommends "$@" >&2; } || {
  echo "$label: apt-get install failed; missing: $*" >&2
}
exit 0
