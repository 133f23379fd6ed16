#!/usr/bin/env bash
# Builds and starts the three services with the example configurations in examples/, plus the
# local dependencies they need, prints each URL, and stops everything on Ctrl+C.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cargo build --release --bins

pids=()
stop() {
  trap - INT TERM EXIT
  echo
  echo "stopping..."
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap stop INT TERM EXIT

start() { # name, then the command
  local name=$1; shift
  # Process substitution, not a pipe, so $! is the service itself and Ctrl+C or TERM reach it.
  "$@" > >(sed -u "s/^/[$name] /") 2>&1 &
  pids+=("$!")
}

start admin-console target/release/admin-console --config examples/admin-console.yaml
start authproxy target/release/authproxy --config examples/authproxy.yaml
start ingress-dash target/release/ingress-dash --config examples/ingress-dash.yaml

cat <<MSG

  admin-console  http://127.0.0.1:8080/api/live   metrics http://127.0.0.1:8080/_metrics
  authproxy      http://127.0.0.1:9000/healthz    metrics http://127.0.0.1:9000/_metrics
  ingress-dash   http://127.0.0.1:3000/api/live   metrics http://127.0.0.1:3000/_metrics

Press Ctrl+C to stop everything.
MSG
wait
