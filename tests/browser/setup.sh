#!/usr/bin/env bash
# Installs the browser tests' one npm package, playwright-core (pinned in package-lock.json
# beside this file), into DIR/node_modules with `npm ci --ignore-scripts` when it is missing or
# its lock differs, and checks that Debian's Chromium is there (scripts/install-deps.sh installs
# it; nothing downloads a browser). Serialised by DIR/.lock, so parallel tests share one install.
# Usage: setup.sh DIR  (DIR is in the build directory: tests/browser/run.sh passes BUILD/browser-node)
set -euo pipefail
dir="$1"
src="$(cd "$(dirname "$0")" && pwd)"
chromium="${SERVESCOPE_CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
  echo "browser tests: no $chromium; install Debian's chromium (scripts/install-deps.sh, run by make deps)" >&2
  exit 1
fi
for tool in node npm flock; do
  command -v "$tool" >/dev/null || { echo "browser tests: no $tool on PATH" >&2; exit 1; }
done
mkdir -p "$dir"
exec 9>"$dir/.lock"
flock -w 600 9
if ! cmp -s "$src/package-lock.json" "$dir/package-lock.json" ||
   [ ! -f "$dir/node_modules/playwright-core/package.json" ]; then
  rm -rf "$dir/node_modules"
  cp "$src/package.json" "$src/package-lock.json" "$dir/"
  (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) >&2 ||
    { rm -f "$dir/package-lock.json"; echo "browser tests: npm ci failed in $dir" >&2; exit 1; }
fi
want=$(node -p 'require(process.argv[1]).packages["node_modules/playwright-core"].version' "$src/package-lock.json")
have=$(node -p 'require(process.argv[1]).version' "$dir/node_modules/playwright-core/package.json")
[ "$want" = "$have" ] || { echo "browser tests: playwright-core $have installed, the lock pins $want" >&2; exit 1; }
