#!/usr/bin/env bash
# scripts/deploy.sh: the production path of media-jobs on Cloudflare, scripted (see docs/deploy.md).
#
# NOT RUN IN THIS REPOSITORY: it needs a Cloudflare account, an API token and network access, none
# of which exist where this project is developed and tested. It has only been checked with
# `bash -n scripts/deploy.sh`. Read it before using it; `plan` (the default) runs nothing.
#
# It only prints or runs wrangler commands (plus `npm run admin` for `bootstrap`). It never edits
# files: the one config change (database_id in wrangler.toml) is printed for you to make. It asks
# nothing interactively when the environment below is set, and it never prints secret values.
#
# Usage:
#   scripts/deploy.sh plan        print every command of a first deploy; run nothing (default)
#   scripts/deploy.sh apply       first deploy or redeploy: D1, queues, migrations, dry run, deploy with secrets
#   scripts/deploy.sh migrate     apply new D1 migrations only (upgrades: run before `deploy`)
#   scripts/deploy.sh deploy      dry run, then deploy the Worker code (no secrets)
#   scripts/deploy.sh secrets     (re)upload ADMIN_SECRET, ENCRYPTION_KEY with `wrangler secret put`
#   scripts/deploy.sh bootstrap   create the first workspace, project, keys and storage connection
#   scripts/deploy.sh runner-token   mint a gpu-runner's own token (printed once; RUNNER_NAME names it)
#
# Environment:
#   CLOUDFLARE_API_TOKEN, CLOUDFLARE_ACCOUNT_ID     all commands except plan
#   ADMIN_SECRET                                    apply, secrets (at least 32 characters)
#   ENCRYPTION_KEY                                  apply, secrets (`openssl rand -base64 32`; NEVER rotate it)
#   D1_DATABASE_ID                                  optional; else found by name or created
#   WRANGLER_ENV                                    default production (the [env.production] section)
#   WEBHOOK_QUEUE_RETENTION_SECS                    default 345600 (4 days; webhook retries span ~62 h)
#   MEDIA_JOBS_API_URL                              bootstrap, runner-token: the deployed URL (https://media-jobs.<sub>.workers.dev)
#   MEDIA_JOBS_ADMIN_SECRET                         bootstrap, runner-token: defaults to ADMIN_SECRET
#   RUNNER_NAME (default gpu-1), RUNNER_LANES, RUNNER_WORKSPACES (comma-separated; default: all)   runner-token
#   MEDIA_JOBS_S3_ENDPOINT, MEDIA_JOBS_S3_REGION,
#   MEDIA_JOBS_S3_ACCESS_KEY_ID, MEDIA_JOBS_S3_SECRET_ACCESS_KEY, BOOTSTRAP_BUCKET    bootstrap
#   BOOTSTRAP_NAME (default: default), BOOTSTRAP_PLAN (free|pro|enterprise, default free)   bootstrap
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
# The project ships Node 22 as a dev dependency (wrangler needs it): put it and wrangler first on PATH.
export PATH="$ROOT/node_modules/.bin:$PATH"
export CI=true WRANGLER_SEND_METRICS=false   # no prompts: wrangler skips confirmations when CI is set

MODE="${1:-plan}"
WRANGLER_ENV="${WRANGLER_ENV:-production}"
DB_NAME="media-jobs"
QUEUES=(media-jobs-dispatch media-jobs-webhooks media-jobs-dispatch-dlq media-jobs-webhooks-dlq)
WEBHOOK_QUEUE_RETENTION_SECS="${WEBHOOK_QUEUE_RETENTION_SECS:-345600}"
PLACEHOLDER_DB_ID="00000000-0000-0000-0000-000000000000"
LOCAL_DEFAULTS=("local-admin-secret" "bG9jYWwtb25seS1lbmNyeXB0aW9uLWtleS0zMmJ5dGU=")

die() { printf 'deploy: %s\n' "$*" >&2; exit "${EXIT_CODE:-1}"; }
say() { printf '\n== %s\n' "$*" >&2; }
# Prints a command; runs it unless planning. Secret values never appear in arguments.
run() {
  printf '+ %s\n' "$*" >&2
  if [ "$MODE" != plan ]; then "$@"; fi
}

# ---- preflight ------------------------------------------------------------------------------------

require_vars() {
  local missing=() v
  for v in "$@"; do
    if [ -z "${!v:-}" ]; then missing+=("$v"); fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    printf 'deploy: refusing to run "%s": these environment variables are not set:\n' "$MODE" >&2
    for v in "${missing[@]}"; do
      case "$v" in
        CLOUDFLARE_API_TOKEN) printf '  %-34s a Cloudflare API token with Workers, D1 and Queues edit rights\n' "$v" >&2 ;;
        CLOUDFLARE_ACCOUNT_ID) printf '  %-34s the Cloudflare account id (dashboard sidebar)\n' "$v" >&2 ;;
        ADMIN_SECRET) printf '  %-34s operator secret for /admin/v1, e.g. $(openssl rand -base64 32)\n' "$v" >&2 ;;
        ENCRYPTION_KEY) printf '  %-34s AES-256-GCM key: $(openssl rand -base64 32); keep it forever\n' "$v" >&2 ;;
        MEDIA_JOBS_API_URL) printf '  %-34s the deployed Worker URL, printed by `deploy`\n' "$v" >&2 ;;
        *) printf '  %s\n' "$v" >&2 ;;
      esac
    done
    exit 2
  fi
}

check_secret_values() {
  local v d
  for v in ADMIN_SECRET ENCRYPTION_KEY; do
    for d in "${LOCAL_DEFAULTS[@]}"; do
      [ "${!v}" != "$d" ] || EXIT_CODE=2 die "$v is the local default from wrangler.toml; generate a real one with: openssl rand -base64 32"
    done
  done
  [ "${#ADMIN_SECRET}" -ge 32 ] || EXIT_CODE=2 die "ADMIN_SECRET must be at least 32 characters"
  local n
  n="$(printf '%s' "$ENCRYPTION_KEY" | base64 -d 2>/dev/null | wc -c | tr -d ' ')" || n=0
  [ "$n" = 32 ] || EXIT_CODE=2 die "ENCRYPTION_KEY must be base64 of exactly 32 bytes (openssl rand -base64 32); got $n bytes"
}

check_tools() {
  command -v wrangler >/dev/null || die "wrangler not found in node_modules/.bin: run \`npm run setup -- --deps-only\` (or npm ci) first"
  local major
  major="$(node -p 'process.versions.node.split(".")[0]')"
  [ "$major" -ge 22 ] || die "wrangler needs Node 22; node_modules/.bin/node is missing (run npm ci)"
}

check_env_section() {
  if ! grep -q "^\[env\.${WRANGLER_ENV}\]" wrangler.toml; then
    EXIT_CODE=3 die "wrangler.toml has no [env.${WRANGLER_ENV}] section. Production must not use the top-level [vars]
  (they hold local secrets). Add the section from docs/deploy.md (\"wrangler.toml: the production environment\") and re-run."
  fi
}

# ---- steps ------------------------------------------------------------------------------------------

d1_id_by_name() {
  wrangler d1 list --json 2>/dev/null | node -e '
    let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
      try { const db = JSON.parse(s).find((d) => d.name === process.argv[1]); if (db) console.log(db.uuid); } catch {}
    });' "$DB_NAME"
}

step_d1() {
  say "D1 database ${DB_NAME}"
  if [ "$MODE" = plan ]; then
    run wrangler d1 create "$DB_NAME"
    printf '   then set database_id = "<uuid printed above>" under [[env.%s.d1_databases]] in wrangler.toml\n' "$WRANGLER_ENV" >&2
    return
  fi
  local id="${D1_DATABASE_ID:-}"
  [ -n "$id" ] || id="$(d1_id_by_name)"
  if [ -z "$id" ]; then
    local out
    printf '+ wrangler d1 create %s\n' "$DB_NAME" >&2
    out="$(wrangler d1 create "$DB_NAME" 2>&1)" || { printf '%s\n' "$out" >&2; die "wrangler d1 create failed"; }
    printf '%s\n' "$out" >&2
    id="$(printf '%s' "$out" | grep -oE '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}' | head -n1 || true)"
    [ -n "$id" ] || die "could not read the database id from the output above; re-run with D1_DATABASE_ID=<uuid>"
  fi
  printf '   database_id = %s\n' "$id" >&2
  if ! grep -q "$id" wrangler.toml; then
    EXIT_CODE=3 die "wrangler.toml does not contain database_id \"$id\" yet.
  Edit [[env.${WRANGLER_ENV}.d1_databases]] so it reads:  database_id = \"$id\"
  (replace $PLACEHOLDER_DB_ID), then re-run: D1_DATABASE_ID=$id scripts/deploy.sh $MODE"
  fi
}

step_queues() {
  say "Queues"
  local existing="" q
  if [ "$MODE" != plan ]; then existing="$(wrangler queues list 2>/dev/null || true)"; fi
  for q in "${QUEUES[@]}"; do
    if printf '%s' "$existing" | grep -qE "(^|[^a-z0-9-])${q}([^a-z0-9-]|$)"; then
      printf '   %s exists\n' "$q" >&2
    elif [ "$q" = media-jobs-webhooks ]; then
      run wrangler queues create "$q" --message-retention-period-secs "$WEBHOOK_QUEUE_RETENTION_SECS"
    else
      run wrangler queues create "$q"
    fi
  done
}

step_migrate() {
  say "D1 migrations (remote)"
  run wrangler d1 migrations apply "$DB_NAME" --remote --env "$WRANGLER_ENV"
}

step_dry_run() {
  say "Build check"
  local out="${TMPDIR:-/tmp}/media-jobs-dry-run"
  run wrangler deploy --dry-run --env "$WRANGLER_ENV" --outdir "$out"
}

# First deploy: secrets travel with the version (--secrets-file), so the Worker never runs without them.
step_deploy_with_secrets() {
  say "Deploy (with secrets)"
  if [ "$MODE" = plan ]; then
    run wrangler deploy --env "$WRANGLER_ENV" --secrets-file "<0600 temp JSON with ADMIN_SECRET, ENCRYPTION_KEY>"
    return
  fi
  local dir file out
  dir="$(mktemp -d)"
  # shellcheck disable=SC2064
  trap "rm -rf '$dir'" EXIT
  file="$dir/secrets.json"
  (umask 077 && node -e '
    const e = process.env;
    process.stdout.write(JSON.stringify({ ADMIN_SECRET: e.ADMIN_SECRET, ENCRYPTION_KEY: e.ENCRYPTION_KEY }));' >"$file")
  printf '+ wrangler deploy --env %s --secrets-file <temp file>\n' "$WRANGLER_ENV" >&2
  out="$(wrangler deploy --env "$WRANGLER_ENV" --secrets-file "$file" 2>&1)" || { printf '%s\n' "$out" >&2; die "wrangler deploy failed"; }
  rm -rf "$dir"
  trap - EXIT
  printf '%s\n' "$out" >&2
  print_url "$out"
}

step_deploy_code() {
  say "Deploy (code)"
  if [ "$MODE" = plan ]; then run wrangler deploy --env "$WRANGLER_ENV"; return; fi
  local out
  printf '+ wrangler deploy --env %s\n' "$WRANGLER_ENV" >&2
  out="$(wrangler deploy --env "$WRANGLER_ENV" 2>&1)" || { printf '%s\n' "$out" >&2; die "wrangler deploy failed"; }
  printf '%s\n' "$out" >&2
  print_url "$out"
}

print_url() {
  local url
  url="$(printf '%s' "$1" | grep -oE 'https://[A-Za-z0-9.-]+\.workers\.dev' | head -n1 || true)"
  if [ -n "$url" ]; then
    printf '\nDeployed: %s\n  check:     curl -sS %s/healthz\n  bootstrap: MEDIA_JOBS_API_URL=%s scripts/deploy.sh bootstrap\n' "$url" "$url" "$url" >&2
  fi
}

# Rotation / re-upload. Values go through stdin, never through arguments.
step_secrets() {
  say "Worker secrets"
  local name
  for name in ADMIN_SECRET ENCRYPTION_KEY; do
    printf '+ printf %%s "$%s" | wrangler secret put %s --env %s\n' "$name" "$name" "$WRANGLER_ENV" >&2
    if [ "$MODE" != plan ]; then printf '%s' "${!name}" | wrangler secret put "$name" --env "$WRANGLER_ENV"; fi
  done
  printf '   note: ENCRYPTION_KEY must never change once data exists; runners have tokens of their own (scripts/deploy.sh runner-token)\n' >&2
}

step_bootstrap() {
  say "Bootstrap the first tenant on ${MEDIA_JOBS_API_URL:-<MEDIA_JOBS_API_URL>}"
  local plan_="${BOOTSTRAP_PLAN:-free}" name="${BOOTSTRAP_NAME:-default}"
  printf '+ MEDIA_JOBS_API_URL=… MEDIA_JOBS_ADMIN_SECRET=… MEDIA_JOBS_S3_*=… npm run --silent admin -- bootstrap --plan %s --name %s --bucket %s\n' \
    "$plan_" "$name" "${BOOTSTRAP_BUCKET:-<bucket>}" >&2
  if [ "$MODE" = plan ]; then return; fi
  MEDIA_JOBS_ADMIN_SECRET="${MEDIA_JOBS_ADMIN_SECRET:-$ADMIN_SECRET}" \
    npm run --silent admin -- bootstrap --plan "$plan_" --name "$name" --bucket "$BOOTSTRAP_BUCKET"
  printf '   the JSON above holds a workspace key, a project key and S3 credentials: store it in your secret manager\n' >&2
}

# A runner's own token: minted through the admin route, its secret printed once. Rotate by minting a
# new one, restarting the runner with it, then `npm run admin -- runner-tokens revoke rnt_…` the old.
step_runner_token() {
  say "Runner token for ${MEDIA_JOBS_API_URL:-<MEDIA_JOBS_API_URL>}"
  local name="${RUNNER_NAME:-gpu-1}" scope=()
  if [ -n "${RUNNER_LANES:-}" ]; then scope+=(--lanes "$RUNNER_LANES"); fi
  if [ -n "${RUNNER_WORKSPACES:-}" ]; then scope+=(--workspaces "$RUNNER_WORKSPACES"); fi
  printf '+ MEDIA_JOBS_API_URL=… MEDIA_JOBS_ADMIN_SECRET=… npm run --silent admin -- runner-tokens create --name %s %s\n' "$name" "${scope[*]:-}" >&2
  if [ "$MODE" = plan ]; then return; fi
  npm run --silent admin -- runner-tokens create --name "$name" ${scope[@]+"${scope[@]}"}
  printf '   start the runner with RUNNER_TOKEN=<the secret above>; store it in your secret manager, it is not shown again\n' >&2
}

# ---- main -------------------------------------------------------------------------------------------

case "$MODE" in
  plan)
    say "PLAN ONLY: nothing is run. Environment: ${WRANGLER_ENV}"
    step_d1; step_queues; step_migrate; step_dry_run; step_deploy_with_secrets; step_secrets; step_bootstrap; step_runner_token
    printf '\nRun for real with: scripts/deploy.sh apply\n' >&2
    ;;
  apply)
    require_vars CLOUDFLARE_API_TOKEN CLOUDFLARE_ACCOUNT_ID ADMIN_SECRET ENCRYPTION_KEY
    check_secret_values; check_tools; check_env_section
    step_d1; step_queues; step_migrate; step_dry_run; step_deploy_with_secrets
    ;;
  migrate)
    require_vars CLOUDFLARE_API_TOKEN CLOUDFLARE_ACCOUNT_ID
    check_tools; check_env_section; step_migrate
    ;;
  deploy)
    require_vars CLOUDFLARE_API_TOKEN CLOUDFLARE_ACCOUNT_ID
    check_tools; check_env_section; step_dry_run; step_deploy_code
    ;;
  secrets)
    require_vars CLOUDFLARE_API_TOKEN CLOUDFLARE_ACCOUNT_ID ADMIN_SECRET ENCRYPTION_KEY
    check_secret_values; check_tools; check_env_section; step_secrets
    ;;
  bootstrap)
    MEDIA_JOBS_ADMIN_SECRET="${MEDIA_JOBS_ADMIN_SECRET:-${ADMIN_SECRET:-}}"
    require_vars MEDIA_JOBS_API_URL MEDIA_JOBS_ADMIN_SECRET MEDIA_JOBS_S3_ENDPOINT MEDIA_JOBS_S3_ACCESS_KEY_ID MEDIA_JOBS_S3_SECRET_ACCESS_KEY BOOTSTRAP_BUCKET
    export MEDIA_JOBS_API_URL MEDIA_JOBS_ADMIN_SECRET MEDIA_JOBS_S3_ENDPOINT MEDIA_JOBS_S3_ACCESS_KEY_ID MEDIA_JOBS_S3_SECRET_ACCESS_KEY
    ADMIN_SECRET="$MEDIA_JOBS_ADMIN_SECRET"
    step_bootstrap
    ;;
  runner-token)
    MEDIA_JOBS_ADMIN_SECRET="${MEDIA_JOBS_ADMIN_SECRET:-${ADMIN_SECRET:-}}"
    require_vars MEDIA_JOBS_API_URL MEDIA_JOBS_ADMIN_SECRET
    export MEDIA_JOBS_API_URL MEDIA_JOBS_ADMIN_SECRET
    step_runner_token
    ;;
  -h|--help|help)
    sed -n '2,33p' "$0"
    ;;
  *)
    EXIT_CODE=2 die "unknown command \"$MODE\"; use plan, apply, migrate, deploy, secrets, bootstrap or runner-token (--help for details)"
    ;;
esac
