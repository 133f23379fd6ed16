#!/usr/bin/env bash
# Builds and starts the three services with the example configurations in examples/, plus the
# local dependencies they need, prints each URL, and stops everything on Ctrl+C:
#   the search cluster: three real OpenSearch nodes (the version pinned in versions.env, fetched
#   from Maven Central once into .cache/servers by scripts/install-servers.sh --make-run) on
#   :9200-9202 (transport :9300-9302), 384 MB of heap each, in a fresh scratch folder, seeded with
#   indices, aliases, templates and a snapshot (scripts/run-local/seed-search.sh),
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
# gone: each is sent TERM, and whatever is still there 10 seconds later is killed. A Ctrl+C (or
# TERM) exits 0; one of its processes exiting by itself exits 1.
#
# Ctrl+C on a terminal is SIGINT to the terminal's foreground process group. Under `make run`
# that group is make's: make, after its recipe ends, dies of that SIGINT whatever the recipe
# returns (the shell sees 130), and each service got the SIGINT too: one that ended before this
# script's trap ran (or any, when whoever started it left SIGINT ignored, which a script cannot
# trap) looked like one that exited by itself ("Error 1"). So on a
# terminal this script takes the foreground for a process group of its own (a job of its own,
# as an interactive shell makes for each command), and starts each service in a group of its
# own (`set -m`): a Ctrl+C reaches this script (and a build or curl it is waiting on) alone, it
# stops everything and exits 0, and make exits 0 with it.
set -euo pipefail
if [ -t 0 ] && [ -z "${RUN_LOCAL_OWN_GROUP:-}" ]; then
  export RUN_LOCAL_OWN_GROUP=1
  exec python3 -c '
import os, signal, sys
# What the script gets: SIGINT at its default, so that its trap can take the Ctrl+C even where
# it was started with SIGINT ignored, and SIGPIPE at its default (Python ignores it).
signal.signal(signal.SIGINT, signal.SIG_DFL)
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
try:
    os.setpgid(0, 0)
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)  # asking for the terminal from the background
    os.tcsetpgrp(0, os.getpgrp())
    signal.signal(signal.SIGTTOU, signal.SIG_DFL)
except OSError as error:
    print(f"run-local: no process group of its own ({error})", file=sys.stderr)
os.execv(sys.argv[1], sys.argv[1:])
' "$0" "$@"
fi
cd "$(dirname "$0")/.."

run_dir=.run
pids=()
search_dir=""
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
  [ -z "$search_dir" ] || rm -rf "$search_dir"
  exit "$status"
}
# Set before the build: a Ctrl+C while it runs stops it and exits 0 too.
trap 'stop 0' INT TERM
trap 'stop 1' EXIT

profile=${PROFILE:-dev}
scripts/install-deps.sh
scripts/install-servers.sh --make-run
cargo build --profile "$profile" --bins -p admin-console -p authproxy -p ingress-dash -p kube-test-server
bin=${CARGO_TARGET_DIR:-target}/$([ "$profile" = dev ] && echo debug || echo "$profile")
for web in */web; do
  [ -f "$web/package.json" ] && (cd "$web" && npm run build --silent)
done

mkdir -p "$run_dir"

start() { # name, then the command
  local name=$1; shift
  # Process substitution, not a pipe, so $! is the process itself and TERM reaches it; in a
  # process group of its own (set -m), so a terminal's Ctrl+C does not (this script stops it).
  set -m
  "$@" > >(sed -u "s/^/[$name] /") 2>&1 </dev/null &
  set +m
  pids+=("$!")
}

# The search cluster: one copy of the distribution shared by three nodes, each with its own
# configuration folder, data and logs; as root, run as the unprivileged user the install script
# made (OpenSearch refuses root), with --pdeathsig so a node never outlives this script.
# shellcheck source=../versions.env
. ./versions.env
search_dir=$(mktemp -d "${TMPDIR:-/tmp}/make-run-search.XXXXXX")
cp -a ".cache/servers/opensearch-$OPENSEARCH_2_VERSION" "$search_dir/home"
mkdir -p "$search_dir/repo"
as_search_user=(setpriv --pdeathsig KILL --)
if [ "$(id -u)" -eq 0 ]; then
  as_search_user=(setpriv --reuid="$SEARCH_SERVER_USER" --regid="$SEARCH_SERVER_USER" --clear-groups
    --pdeathsig KILL --)
fi
for i in 0 1 2; do
  node=$search_dir/node-$i
  mkdir -p "$node/data" "$node/logs" "$node/tmp"
  cp -a "$search_dir/home/config" "$node/config"
done
[ "$(id -u)" -ne 0 ] || chown -R "$SEARCH_SERVER_USER" "$search_dir"
for i in 0 1 2; do
  node=$search_dir/node-$i
  # The node's own console goes to its log file (a screenful of INFO lines per node otherwise).
  # A process group of its own, as start gives each service.
  set -m
  OPENSEARCH_PATH_CONF=$node/config OPENSEARCH_JAVA_HOME=$OPENSEARCH_2_JAVA_HOME \
    OPENSEARCH_JAVA_OPTS="-Xms384m -Xmx384m" OPENSEARCH_TMPDIR=$node/tmp \
    "${as_search_user[@]}" "$search_dir/home/bin/opensearch" \
    -E cluster.name=make-run -E node.name="node-$i" -E network.host=127.0.0.1 \
    -E http.port=$((9200 + i)) -E transport.port=$((9300 + i)) \
    -E discovery.seed_hosts=127.0.0.1:9300,127.0.0.1:9301,127.0.0.1:9302 \
    -E cluster.initial_cluster_manager_nodes=node-0,node-1,node-2 \
    -E path.data="$node/data" -E path.logs="$node/logs" -E path.repo="$search_dir/repo" \
    -E cluster.routing.allocation.disk.threshold_enabled=false \
    >"$node/console.log" 2>&1 </dev/null &
  set +m
  pids+=("$!")
done
echo "[search] three OpenSearch $OPENSEARCH_2_VERSION nodes starting (logs: $search_dir/node-*/console.log)"
# Three cold JVMs: up to three minutes on a small machine.
deadline=$((SECONDS + 180))
until curl -fs -o /dev/null \
  "http://127.0.0.1:9200/_cluster/health?wait_for_nodes=3&wait_for_status=green&timeout=1s"; do
  for pid in "${pids[@]}"; do
    kill -0 "$pid" 2>/dev/null || { tail -20 "$search_dir"/node-*/console.log; echo "a search node exited"; exit 1; }
  done
  ((SECONDS < deadline)) || { tail -20 "$search_dir"/node-*/console.log; echo "the search cluster was not green with 3 nodes within 180 s"; exit 1; }
  sleep 0.5
done
scripts/run-local/seed-search.sh http://127.0.0.1:9200 "$search_dir/repo/backups"
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
  personal tokens   http://127.0.0.1:9000/auth/tokens  (signed in; then curl -u <user>:apt_... http://127.0.0.1:8880/api/whoami)
  Demo users (password demo-password for each):
    viewer    group demo-viewers    admin-console viewer,   ingress-dash every namespace
    operator  group demo-operators  admin-console operator, ingress-dash every namespace
    admin     group demo-admins     admin-console admin,    ingress-dash every namespace
    shop      group shop-team       admin-console viewer,   ingress-dash namespace team-001 only
    demo      (HTTP Basic, for curl) as admin: curl -u demo:demo-password http://127.0.0.1:8880/api/whoami
    demo-service (Bearer token, client credentials) as viewer:
              TOKEN=\$(curl -s -u demo-service:demo-service-secret -d grant_type=client_credentials http://127.0.0.1:5556/token | jq -r .access_token)
              curl -H "Authorization: Bearer \$TOKEN" http://127.0.0.1:8880/api/whoami

  The services themselves (trusted_headers: from this machine, name the identity yourself):
  admin-console     http://127.0.0.1:8080            metrics http://127.0.0.1:8081/_metrics
                    curl -H 'X-Auth-Request-User: me' -H 'X-Auth-Request-Groups: demo-admins' http://127.0.0.1:8080/api/whoami
  authproxy         http://127.0.0.1:9000/healthz    metrics http://127.0.0.1:9001/_metrics (and the check nginx asks)
  ingress-dash      http://127.0.0.1:3000            metrics http://127.0.0.1:3001/_metrics
                    curl -H 'X-Auth-Request-User: me' -H 'X-Auth-Request-Groups: shop-team' http://127.0.0.1:3000/api/namespaces
  OpenID provider   http://127.0.0.1:5556            (test-support/oidc)
  audit log         .run/admin-console-audit.log
  search cluster    http://127.0.0.1:9200            (three OpenSearch $OPENSEARCH_2_VERSION nodes, also :9201, :9202)
  Prometheus        http://127.0.0.1:9090
  kube-test-server  http://127.0.0.1:6443            (sample Kubernetes API for ingress-dash)

Press Ctrl+C to stop everything.
MSG
# Runs until Ctrl+C; if one of them exits by itself, the others are stopped too.
wait -n "${pids[@]}" || true
echo "a process exited by itself (see its output above)"
