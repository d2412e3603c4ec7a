#!/bin/sh
# Installs the Debian packages bench:text reads: wordnet-base (the WordNet gloss corpus in
# /usr/share/wordnet) and python3-xapian (the Xapian BM25 peer, run with /usr/bin/python3).
# Uses sudo only when not root; skips (exit 0, with a note) when apt-get is unavailable, in which
# case the bench reports the missing parts as null with a reason.
set -u
need=""
[ -f /usr/share/wordnet/data.noun ] || need="$need wordnet-base"
/usr/bin/python3 -c 'import xapian' >/dev/null 2>&1 || need="$need python3-xapian"
if [ -z "$need" ]; then
  echo "text-deps: wordnet-base and python3-xapian already present" >&2
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "text-deps: apt-get unavailable; missing:$need (the bench reports those parts as null)" >&2
  exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo -n"; else
    echo "text-deps: not root and no sudo; missing:$need" >&2
    exit 0
  fi
fi
echo "text-deps: installing$need" >&2
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
$SUDO apt-get install -y --no-install-recommends $need >&2 || { $SUDO apt-get update >&2 && $SUDO apt-get install -y --no-install-recommends $need >&2; } || {
  echo "text-deps: apt-get install failed; missing:$need" >&2
  exit 0
}
exit 0
