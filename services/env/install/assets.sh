#!/usr/bin/env bash
# p5 and p5.brush from the npm registry, exactly as pinned by the lockfile.
set -euo pipefail
cd "$(dirname "$0")/../assets"
npm ci --no-audit --no-fund --loglevel=error
test -f node_modules/p5/lib/p5.min.js
test -f node_modules/p5.brush/dist/p5.brush.js
