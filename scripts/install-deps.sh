#!/usr/bin/env bash
# Installs what the tests and `make run` need, skipping what is already there:
#   Debian packages  redis-server, prometheus (with promtool), prometheus-elasticsearch-exporter,
#                    chromium (browser tests), nginx (benchmarks)
#   Python venv      .venv with osmem-server (an in-memory OpenSearch-compatible server)
#   npm              `npm ci` in every web/ folder that has a package-lock.json
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '==> %s\n' "$*"; }

# Debian package name -> a command it provides.
declare -A packages=(
  [redis-server]=redis-server
  [prometheus]=promtool
  [prometheus-elasticsearch-exporter]=prometheus-elasticsearch-exporter
  [chromium]=chromium
)
missing=()
for package in "${!packages[@]}"; do
  command -v "${packages[$package]}" >/dev/null 2>&1 || missing+=("$package")
done
if ((${#missing[@]})); then
  log "apt-get install ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # The Debian services start themselves on install; the tests start their own copies.
  for service in redis-server prometheus prometheus-elasticsearch-exporter; do
    $sudo systemctl disable --now "$service" >/dev/null 2>&1 || $sudo service "$service" stop >/dev/null 2>&1 || true
  done
else
  log "Debian packages present"
fi

osmem=".venv/lib/python3*/site-packages/osmem_server/bin/osmem-server"
# shellcheck disable=SC2086
if ! ls $osmem >/dev/null 2>&1; then
  log "python venv .venv with osmem-server"
  python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check osmem-server==0.1.6
else
  log "osmem-server present"
fi

for lock in */web/package-lock.json; do
  [ -e "$lock" ] || continue
  dir=$(dirname "$lock")
  # npm ci always wipes node_modules; skip it when the installed tree matches the lock file.
  if [ -f "$dir/node_modules/.package-lock.json" ] && cmp -s <(sed 1,3d "$lock") <(sed 1,3d "$dir/node_modules/.package-lock.json" 2>/dev/null); then
    log "npm packages present in $dir"
  else
    log "npm ci in $dir"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  fi
done
