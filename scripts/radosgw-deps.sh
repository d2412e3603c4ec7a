#!/bin/sh
# Installs the Debian packages of a single-node Ceph object gateway (test/harness/radosgw.ts boots
# it for the cluster tests and bench): ceph-mon, ceph-osd (memstore), radosgw, ceph-common (the
# ceph, ceph-authtool and radosgw-admin commands; monmaptool comes with ceph-base, which they pull
# in). .ci/run installs the same list in its one install step. Uses sudo only when not root;
# skips (exit 0, with a note) when it cannot install, in which case the tests name the missing
# package (skip locally, fail under CI).
set -u
need="ceph-mon ceph-osd radosgw ceph-common"
# One line per package; any not "ii" (installed), an unknown one's error included, means install.
if ! dpkg-query -W -f='${db:Status-Abbrev}\n' $need 2>&1 | grep -vq '^ii'; then
  echo "radosgw-deps: already present" >&2
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "radosgw-deps: apt-get unavailable; missing: $need" >&2
  exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo -n"; else
    echo "radosgw-deps: not root and no sudo; missing: $need" >&2
    exit 0
  fi
fi
echo "radosgw-deps: installing $need" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y -qq --no-install-recommends $need >&2 || { $SUDO apt-get update -qq >&2 && $SUDO apt-get install -y -qq --no-install-recommends $need >&2; } || {
  echo "radosgw-deps: apt-get install failed; missing: $need" >&2
  exit 0
}
exit 0
