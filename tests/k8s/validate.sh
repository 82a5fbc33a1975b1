#!/usr/bin/env bash
# Validates Kubernetes manifests against the Kubernetes API schemas (validate.mjs): installs the
# validator's npm packages (kubernetes-models, ajv, yaml; pinned in package-lock.json beside
# this file) into DIR/node_modules with `npm ci --ignore-scripts` when they are missing or the
# lock differs — once; later runs need no registry. Serialised by DIR/.lock.
# Usage: validate.sh DIR MANIFEST...  (DIR in the build directory: BUILD/k8s-node)
set -euo pipefail
dir="$1"
shift
src="$(cd "$(dirname "$0")" && pwd)"
for tool in node npm flock; do
  command -v "$tool" >/dev/null || { echo "k8s validation: no $tool on PATH (Debian: nodejs npm)" >&2; exit 1; }
done
mkdir -p "$dir"
(
  exec 9>"$dir/.lock"
  flock -w 600 9
  if ! cmp -s "$src/package-lock.json" "$dir/package-lock.json" ||
     [ ! -f "$dir/node_modules/kubernetes-models/package.json" ]; then
    rm -rf "$dir/node_modules"
    cp "$src/package.json" "$src/package-lock.json" "$dir/"
    (cd "$dir" && npm ci --ignore-scripts --prefer-offline --no-audit --no-fund --loglevel=error) >&2 ||
      { rm -f "$dir/package-lock.json"; echo "k8s validation: npm ci failed in $dir" >&2; exit 1; }
  fi
  cp "$src/validate.mjs" "$dir/validate.mjs"
)
K8S_SCHEMA_DIR="$src" exec node "$dir/validate.mjs" "$@"
