#!/usr/bin/env bash
# Validates Kubernetes manifests against the Kubernetes API schemas (validate.mjs): installs the
# validator's npm packages (kubernetes-models, ajv, yaml; pinned in package-lock.json beside
# this file) into DIR/node_modules once (scripts/npm-ci-into.sh); later runs need no registry.
# Usage: validate.sh DIR MANIFEST...  (DIR in the build directory: BUILD/k8s-node)
set -euo pipefail
dir="$1"
shift
src="$(cd "$(dirname "$0")" && pwd)"
"$src/../../scripts/npm-ci-into.sh" "$src" "$dir" kubernetes-models
cp "$src/validate.mjs" "$dir/validate.mjs"
K8S_SCHEMA_DIR="$src" exec node "$dir/validate.mjs" "$@"
