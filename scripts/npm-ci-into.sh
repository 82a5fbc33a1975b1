#!/usr/bin/env bash
# usage: scripts/npm-ci-into.sh SRC DIR PACKAGE
# Installs the npm packages pinned in SRC/package-lock.json into DIR/node_modules with
# `npm ci --ignore-scripts` when PACKAGE is missing there or the lock changed, so later runs need
# no registry; DIR lives in the build directory. Serialised by DIR/.lock (parallel tests share
# one install). Fails with one line naming what is missing.
set -euo pipefail
src=${1:?usage: npm-ci-into.sh SRC DIR PACKAGE}
dir=${2:?usage: npm-ci-into.sh SRC DIR PACKAGE}
package=${3:?usage: npm-ci-into.sh SRC DIR PACKAGE}
for tool in node npm flock; do
  command -v "$tool" >/dev/null || { echo "npm-ci-into: no $tool on PATH (Debian: nodejs)" >&2; exit 1; }
done
mkdir -p "$dir"
exec 9>"$dir/.lock"
flock -w 600 9
if ! cmp -s "$src/package-lock.json" "$dir/package-lock.json" ||
   [ ! -f "$dir/node_modules/$package/package.json" ]; then
  rm -rf "$dir/node_modules"
  cp "$src/package.json" "$src/package-lock.json" "$dir/"
  (cd "$dir" && npm ci --ignore-scripts --prefer-offline --no-audit --no-fund --loglevel=error) >&2 ||
    { rm -f "$dir/package-lock.json"; echo "npm-ci-into: npm ci failed in $dir" >&2; exit 1; }
fi
want=$(node -p 'require(require("path").resolve(process.argv[1])).packages["node_modules/" + process.argv[2]].version' \
  "$src/package-lock.json" "$package")
have=$(node -p 'require(require("path").resolve(process.argv[1])).version' "$dir/node_modules/$package/package.json")
[ "$want" = "$have" ] || { echo "npm-ci-into: $package $have installed in $dir, the lock pins $want" >&2; exit 1; }
