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
# shellcheck disable=SC2086
exec sh "$(dirname "$0")/../scripts/apt-install.sh" text-deps $need
