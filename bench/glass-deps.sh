#!/bin/sh
# Brings glass (https://github.com/zilliztech/pyglass, MIT, header-only C++; not on npm), bench:ann's
# state-of-the-art HNSW peer, into bench/.glass/src and builds our driver bench/glass_driver.cc
# against it into bench/.glass/glass_driver. bench/.glass/ is git-ignored: glass's code is never
# committed here. The source is $GLASS_SRC, a pyglass checkout or a git dir (its HEAD is read);
# unset, what an earlier run extracted, else the mirror at /work/.mirror/zilliztech+pyglass/repo.
# Without a source (or without g++) it says so in one line and exits 0: bench:ann then skips glass
# with a note. The driver is rebuilt when it is missing, older than glass_driver.cc or this script,
# or the source changed; a failing compile exits 1.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out="$here/.glass"
src="$out/src"
driver="$here/glass_driver.cc"
bin="$out/glass_driver"
mirror=/work/.mirror/zilliztech+pyglass/repo
how='GLASS_SRC=<checkout of https://github.com/zilliztech/pyglass> sh bench/glass-deps.sh'

if [ -n "${GLASS_SRC:-}" ]; then
  from=$GLASS_SRC
elif [ -f "$src/glass/builder.hpp" ]; then
  from=""
elif [ -d "$mirror" ]; then
  from=$mirror
else
  echo "glass-deps: no glass source, bench:ann skips glass; to add it: $how" >&2
  exit 0
fi

if [ -n "$from" ]; then
  # A checkout is copied; a git dir (bare or .git) gives its HEAD. Only the headers and the licence.
  if [ -f "$from/glass/builder.hpp" ]; then
    kind=dir
    id="dir $(cd "$from" && pwd)"
  elif commit=$(git --git-dir="$from" rev-parse HEAD 2>/dev/null); then
    kind=git
    id="git $commit $from"
  else
    echo "glass-deps: GLASS_SRC=$from is neither a pyglass checkout nor a git dir, bench:ann skips glass; to add it: $how" >&2
    exit 0
  fi
  if [ ! -f "$src/glass/builder.hpp" ] || [ "$(cat "$out/source" 2>/dev/null)" != "$id" ]; then
    rm -rf "$src.tmp" "$bin"
    mkdir -p "$src.tmp"
    if [ "$kind" = dir ]; then
      cp -R "$from/glass" "$from/third_party" "$from/LICENSE" "$src.tmp/" || exit 1
    else
      git --git-dir="$from" archive HEAD glass third_party LICENSE | tar -x -C "$src.tmp" || exit 1
    fi
    rm -rf "$src"
    mv "$src.tmp" "$src"
    echo "$id" >"$out/source"
    echo "glass-deps: glass source from $from into $src" >&2
  fi
fi

if [ -x "$bin" ] && [ -z "$(find "$driver" "$here/glass-deps.sh" -newer "$bin" 2>/dev/null)" ]; then
  echo "glass-deps: $bin up to date ($(cat "$out/source" 2>/dev/null))" >&2
  exit 0
fi
if ! command -v g++ >/dev/null 2>&1; then
  echo "glass-deps: no g++ to build the glass driver, bench:ann skips glass" >&2
  exit 0
fi
echo "glass-deps: building $bin" >&2
# glass includes "glass/..." from its root and "helpa/..." from third_party/helpa.
# -Wno-narrowing: glass's refiner narrows a float in a template we do not use (SQ8U as the refine quantizer).
g++ -std=c++20 -O3 -march=native -fopenmp -Wno-narrowing -I "$src" -I "$src/third_party/helpa" -o "$bin.tmp" "$driver" || exit 1
mv "$bin.tmp" "$bin"
