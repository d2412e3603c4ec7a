#!/usr/bin/env bash
# npm run format:native [-- --check]: applies .clang-format to the C++ sources of native/ (every .cc
# and .h; the generated Unicode tables are left as generated). With --check it changes nothing and
# fails listing what differs. Needs Debian's clang-format (the check is written against version 14).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
mapfile -t sources < <(find native -name '*.cc' -o -name '*.h' | sort)
if [ "${1:-}" = "--check" ]; then
  clang-format --dry-run --Werror "${sources[@]}"
else
  clang-format -i "${sources[@]}"
fi
