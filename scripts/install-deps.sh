#!/usr/bin/env bash
# Installs what the tests and `make run` need, skipping what is already there:
#   Debian packages  redis-server, prometheus (with promtool), prometheus-elasticsearch-exporter,
#                    chromium (browser tests), nginx (benchmarks; TLS front in tests), openssl
#                    (test certificates), docker.io (the engine the container test starts itself),
#                    docker-compose (Debian's, 1.29) and mmdebstrap (the test's stand-in base images)
#   Python venv      .venv with the packaging checks' tools and the tracing tests' OTLP receiver
#                    (scripts/requirements-test.txt)
#   npm              `npm ci` in every web/ folder and test-support/oidc (package-lock.json)
# The real servers only the tests need (search servers from Maven, the Kubernetes tools built
# from the Go module proxy) are installed by scripts/install-servers.sh, which `make test` calls
# after this script; `make run` does not need them and stays quick on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '==> %s\n' "$*"; }

# Debian package name -> a command it provides.
declare -A packages=(
  [redis-server]=redis-server
  [prometheus]=promtool
  [prometheus-elasticsearch-exporter]=prometheus-elasticsearch-exporter
  [chromium]=chromium
  [wrk]=wrk                  # benchmarks (bench/, benches/)
  [nginx-light]=nginx        # the benchmarks' reverse-proxy baseline; TLS in front of the search cluster in tests
  [openssl]=openssl          # a private CA and certificates for the TLS tests
  [docker.io]=dockerd        # the container test starts its own engine (scripts/containers/)
  [docker-compose]=docker-compose
  [mmdebstrap]=mmdebstrap    # the Debian root file system of the container test's stand-ins
  [iproute2]=ss              # kube-test-server's test reads its listen backlog with `ss`
  [maven]=mvn                # fetches the pinned search servers (scripts/install-servers.sh)
  [unzip]=unzip
  [util-linux]=setpriv       # the search servers run as an unprivileged user, killed with their test
  [openjdk-17-jdk-headless]=javac  # compiles the Elasticsearch 8 node's two small test plugins
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
  for service in redis-server prometheus prometheus-elasticsearch-exporter nginx; do
    $sudo systemctl disable --now "$service" >/dev/null 2>&1 || $sudo service "$service" stop >/dev/null 2>&1 || true
  done
else
  log "Debian packages present"
fi

# The venv is reinstalled from scripts/requirements-test.txt only when that file changed.
requirements=scripts/requirements-test.txt
stamp=.venv/.requirements.sha256
wanted=$(sha256sum "$requirements" | cut -d' ' -f1)
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
  log "python venv .venv from $requirements"
  [ -x .venv/bin/python ] || python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check -r "$requirements"
  echo "$wanted" > "$stamp"
else
  log "python venv up to date"
fi

for lock in */web/package-lock.json test-support/*/package-lock.json; do
  [ -e "$lock" ] || continue
  dir=$(dirname "$lock")
  # npm ci always wipes node_modules; skip it when the installed tree (npm's hidden lock file)
  # is newer than package-lock.json, the same test npm itself uses.
  if [ "$dir/node_modules/.package-lock.json" -nt "$lock" ]; then
    log "npm packages present in $dir"
  else
    log "npm ci in $dir"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  fi
done
