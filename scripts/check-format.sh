#!/usr/bin/env bash
# Checks that every C++/CUDA source in git is formatted by .clang-format (CI runs this);
# --fix formats them in place; --tidy also runs the .clang-tidy naming check over host/
# (needs a build with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON in build/).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-check}
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' '*.h')
if [ "$mode" = --fix ]; then
  clang-format -i "${files[@]}"
elif [ "$mode" = --tidy ]; then
  git ls-files 'host/*.cpp' | xargs clang-tidy -p build --quiet
else
  clang-format --dry-run -Werror "${files[@]}"
  echo "format: ${#files[@]} files formatted as .clang-format says"
fi
