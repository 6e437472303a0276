#!/usr/bin/env bash
# Builds the documentation site (mkdocs.yml, docs/) into BUILD_DIR/site
# with `mkdocs build --strict`: any warning (a broken link or anchor, a page
# left out of the navigation, a generated part that cannot be made) fails.
# The generated pages (error rules, C++ and Python API, the commands' help)
# come from the build tree, so build it first (scripts/test.sh does).
#
#   scripts/docs.sh [BUILD_DIR]     (default: $CROQ_BUILD_DIR, else ./build)
#
# The Python is CROQ_DOCS_PYTHON, else BUILD_DIR/python-venv's (where
# scripts/python-deps.sh installs docs/requirements.txt), else python3.
# Exit 77 when it has no MkDocs with the Material theme (ctest: a skip).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${CROQ_BUILD_DIR:-$root/build}}
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac
python=${CROQ_DOCS_PYTHON:-}
if [ -z "$python" ]; then
  if [ -x "$build/python-venv/bin/python" ]; then python=$build/python-venv/bin/python; else python=python3; fi
fi
if ! "$python" -c 'import mkdocs, material' 2>/dev/null; then
  echo "docs: MkDocs with the Material theme is not installed for $python" \
    "(scripts/python-deps.sh $build installs docs/requirements.txt)" >&2
  exit 77
fi
start=$(date +%s%N)
NO_MKDOCS_2_WARNING=1 CROQ_BUILD_DIR=$build "$python" -m mkdocs build --strict --config-file "$root/mkdocs.yml" --site-dir "$build/site"
end=$(date +%s%N)
echo "docs: $build/site built in $(( (end - start) / 1000000 )) ms"
