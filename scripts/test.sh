#!/usr/bin/env bash
# The test command (README, .ci/run): static checks (format, types, lint, bindings), then every test project.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --deps-only
npm run -s format:check
npm run -s typecheck
npm run -s lint
# The Python client (sdk/python): Ruff's lint rules and formatting, Pyright strict.
npm run -s lint:python
# The bindings' generated types (worker-configuration.d.ts, `npm run types:bindings`) match
# wrangler.toml; test/node/bindings.test.ts checks worker/env.ts declares every one of them.
npx wrangler types worker-configuration.d.ts --include-runtime=false --env-interface WorkerBindings --check >/dev/null
# Catches broken bindings before any test runs (bundles only; uploads nothing).
npx wrangler deploy --dry-run --env production --outdir .wrangler/dry-run >/dev/null
mkdir -p .local
status=0
npx vitest run --project workers --project node --project media --project e2e --reporter=default --reporter=json --outputFile=.local/test-results.json || status=$?
# One plain closing line for CI, whatever the reporter printed.
node -e '
  const r = JSON.parse(require("fs").readFileSync(".local/test-results.json", "utf8"));
  const skipped = r.numPendingTests + r.numTodoTests;
  console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed` + (skipped ? `, ${skipped} skipped` : ""));
' || true
exit $status
