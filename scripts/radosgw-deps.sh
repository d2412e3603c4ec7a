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
# shellcheck disable=SC2086
exec sh "$(dirname "$0")/apt-install.sh" radosgw-deps $need
