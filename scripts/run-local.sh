#!/usr/bin/env bash
# Builds and starts the three services with the example configurations in examples/, plus the
# local dependencies they need, prints each URL, and stops everything on Ctrl+C:
#   the search cluster on :9200: search-test-server (three simulated nodes, tasks, snapshots,
#   allocation) in front of osmem-server (in-memory OpenSearch) on :9210, seeded with indices,
#   aliases, templates and a snapshot (scripts/run-local/seed-search.sh),
#   prometheus-elasticsearch-exporter on :9114 and Prometheus on :9090 scraping it,
#   redis-server on :6379, kube-test-server (sample Kubernetes API) on :6443,
#   the local OpenID provider (test-support/oidc, demo users) on :5556, and nginx as the front
#   door: http://127.0.0.1:8880 (admin-console) and :8881 (ingress-dash), each request checked
#   by authproxy (forward_auth), sign-in through the OpenID provider.
# The services' configurations are examples/<service>.yaml with scripts/run-local/<service>.yaml
# merged over it (scripts/run-local/overlay.py), written to .run/.
# The binaries are the dev profile's (what `make test` builds too, so after it nothing is left to
# compile; a cold build takes a fraction of the fat-LTO release build's time); PROFILE=fast or
# PROFILE=release scripts/run-local.sh runs an optimised build instead.
# When it returns (Ctrl+C, TERM, or one of its processes exiting), every process it started is
# gone: each is sent TERM, and whatever is still there 10 seconds later is killed.
set -euo pipefail
cd "$(dirname "$0")/.."

profile=${PROFILE:-dev}
scripts/install-deps.sh
cargo build --profile "$profile" --bins -p admin-console -p authproxy -p ingress-dash -p kube-test-server -p search-test-server
bin=${CARGO_TARGET_DIR:-target}/$([ "$profile" = dev ] && echo debug || echo "$profile")
for web in */web; do
  [ -f "$web/package.json" ] && (cd "$web" && npm run build --silent)
done

run_dir=.run
mkdir -p "$run_dir"
pids=()
stop() { # exit status
  local status=$1
  trap - EXIT
  trap '' INT TERM  # a second Ctrl+C must not cut the clean-up short
  echo
  echo "stopping..."
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  # Idle, they stop at once; whatever is still there after 10 seconds is killed.
  local deadline=$((SECONDS + 10)) pid
  for pid in "${pids[@]}"; do
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
  exit "$status"
}
trap 'stop 0' INT TERM
trap 'stop 1' EXIT

start() { # name, then the command
  local name=$1; shift
  # Process substitution, not a pipe, so $! is the process itself and Ctrl+C or TERM reach it.
  "$@" > >(sed -u "s/^/[$name] /") 2>&1 &
  pids+=("$!")
}

osmem=$(ls .venv/lib/python3*/site-packages/osmem_server/bin/osmem-server)
start osmem "$osmem" -addr 127.0.0.1:9210 -no-stdin-watch -no-ja
for _ in $(seq 100); do
  curl -fs -o /dev/null http://127.0.0.1:9210/_cluster/health && break
  sleep 0.1
done
start search-test-server "$bin"/search-test-server --osmem-url http://127.0.0.1:9210 --port 9200 \
  --nodes 3 --seed --no-stdin-watch
for _ in $(seq 100); do
  curl -fs -o /dev/null http://127.0.0.1:9200/_cluster/health && break
  sleep 0.1
done
scripts/run-local/seed-search.sh http://127.0.0.1:9200
start redis redis-server --bind 127.0.0.1 --port 6379 --save "" --appendonly no
start exporter prometheus-elasticsearch-exporter --es.uri=http://127.0.0.1:9200 --web.listen-address=127.0.0.1:9114
cat > "$run_dir/prometheus.yml" <<'YAML'
global: {scrape_interval: 15s}
scrape_configs:
  - job_name: elasticsearch
    static_configs: [{targets: ["127.0.0.1:9114"], labels: {cluster: monitored}}]
  - job_name: search-platform
    metrics_path: /_metrics
    # The services' internal listeners (server.internal_port).
    static_configs: [{targets: ["127.0.0.1:8081", "127.0.0.1:9001", "127.0.0.1:3001"]}]
YAML
start prometheus prometheus --config.file="$run_dir/prometheus.yml" --storage.tsdb.path="$run_dir/prometheus" --web.listen-address=127.0.0.1:9090
start kube-test-server "$bin"/kube-test-server --port 6443 --sample 200 --namespaces 10 --churn 5s
# The services start once the sample API answers (it is their only start-up dependency).
for _ in $(seq 100); do
  curl -fs -o /dev/null http://127.0.0.1:6443/api && break
  sleep 0.1
done

# The OpenID provider the tests use, with make run's demo users (scripts/run-local/oidc.json);
# authproxy reads its discovery document at start.
start oidc env OIDC_TEST_CONFIG="$(cat scripts/run-local/oidc.json)" node test-support/oidc/server.js
for _ in $(seq 200); do
  curl -fs -o /dev/null http://127.0.0.1:5556/.well-known/openid-configuration && break
  sleep 0.1
done

for service in admin-console authproxy ingress-dash; do
  .venv/bin/python scripts/run-local/overlay.py "examples/$service.yaml" "scripts/run-local/$service.yaml" \
    > "$run_dir/$service.yaml"
done
export MONITORED_SEARCH_URL=http://127.0.0.1:9200
# The client secret oidc.json gives the provider.
export OIDC_CLIENT_SECRET=make-run-only-client-secret
start admin-console "$bin"/admin-console --config "$run_dir/admin-console.yaml"
start authproxy "$bin"/authproxy --config "$run_dir/authproxy.yaml"
start ingress-dash "$bin"/ingress-dash --config "$run_dir/ingress-dash.yaml"
mkdir -p "$run_dir/nginx"
start nginx nginx -e stderr -p "$PWD/$run_dir/nginx/" -c "$PWD/scripts/run-local/nginx.conf" -g "daemon off;"

cat <<MSG

  Front door (sign in through authproxy and the local OpenID provider):
  admin-console     http://127.0.0.1:8880
  ingress-dash      http://127.0.0.1:8881
  sign out          http://127.0.0.1:9000/auth/logout
  Demo users (password demo-password for each):
    viewer    group demo-viewers    admin-console viewer,   ingress-dash every namespace
    operator  group demo-operators  admin-console operator, ingress-dash every namespace
    admin     group demo-admins     admin-console admin,    ingress-dash every namespace
    shop      group shop-team       admin-console viewer,   ingress-dash namespace team-001 only
    demo      (HTTP Basic, for curl) as admin: curl -u demo:demo-password http://127.0.0.1:8880/api/whoami

  The services themselves (trusted_headers: from this machine, name the identity yourself):
  admin-console     http://127.0.0.1:8080            metrics http://127.0.0.1:8081/_metrics
                    curl -H 'X-Auth-Request-User: me' -H 'X-Auth-Request-Groups: demo-admins' http://127.0.0.1:8080/api/whoami
  authproxy         http://127.0.0.1:9000/healthz    metrics http://127.0.0.1:9001/_metrics (and the check nginx asks)
  ingress-dash      http://127.0.0.1:3000            metrics http://127.0.0.1:3001/_metrics
                    curl -H 'X-Auth-Request-User: me' -H 'X-Auth-Request-Groups: shop-team' http://127.0.0.1:3000/api/namespaces
  OpenID provider   http://127.0.0.1:5556            (test-support/oidc)
  audit log         .run/admin-console-audit.log
  search cluster    http://127.0.0.1:9200            (search-test-server, 3 simulated nodes, before osmem-server on :9210)
  Prometheus        http://127.0.0.1:9090
  kube-test-server  http://127.0.0.1:6443            (sample Kubernetes API for ingress-dash)

Press Ctrl+C to stop everything.
MSG
# Runs until Ctrl+C; if one of them exits by itself, the others are stopped too.
wait -n "${pids[@]}" || true
echo "a process exited by itself (see its output above)"
