#!/usr/bin/env bash
# The test command (README, .ci/run): static checks, then every test project.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --deps-only
npm run -s typecheck
npm run -s lint
# Catches broken bindings before any test runs (bundles only; uploads nothing).
npx wrangler deploy --dry-run --env production --outdir .wrangler/dry-run >/dev/null
npx vitest run --project workers --project node --project e2e
