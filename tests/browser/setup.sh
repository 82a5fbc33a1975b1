#!/usr/bin/env bash
# Installs the browser tests' one npm package, playwright-core (pinned in package-lock.json
# beside this file), into DIR/node_modules (scripts/npm-ci-into.sh), and checks that Debian's
# Chromium is there (scripts/install-deps.sh --browser installs it; nothing downloads a browser).
# Usage: setup.sh DIR  (DIR is in the build directory: tests/browser/run.sh passes BUILD/browser-node)
set -euo pipefail
dir="$1"
src="$(cd "$(dirname "$0")" && pwd)"
chromium="${SERVESCOPE_CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
  echo "browser tests: no $chromium; install Debian's chromium (scripts/install-deps.sh --browser, run by make test-golden)" >&2
  exit 1
fi
"$src/../../scripts/npm-ci-into.sh" "$src" "$dir" playwright-core
