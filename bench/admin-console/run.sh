#!/usr/bin/env bash
# admin-console benchmark: each figure beside its baseline, in one run.
#
#   bench/admin-console/run.sh          # from the repository root; builds the release binary
#
# Needs wrk, nginx, curl, python3 and osmem-server (in .venv, installed by `make test`).
# BENCH_SECONDS (default 5) sets the length of each wrk run. Everything listens on 127.0.0.1
# and is stopped (by its own PID) when the script ends.
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_PER_RUN=${BENCH_SECONDS:-5}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release -q -p admin-console
BIN="$CARGO_TARGET_DIR/release/admin-console"
OSMEM=$(ls .venv/lib/python3*/site-packages/osmem_server/bin/osmem-server | head -1)
HERE=bench/admin-console
WORK=$(mktemp -d)
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_http() { for _ in $(seq 100); do curl -fs -o /dev/null "$1" && return 0; sleep 0.1; done; echo "no answer from $1" >&2; exit 1; }

# The cluster: osmem-server, plus a counting proxy in front of it for the calls-per-snapshot count.
"$OSMEM" -addr 127.0.0.1:0 -no-stdin-watch -no-ja >"$WORK/osmem.out" 2>/dev/null &
PIDS+=($!)
for _ in $(seq 100); do [ -s "$WORK/osmem.out" ] && break; sleep 0.1; done
CLUSTER=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["url"])' "$WORK/osmem.out")
wait_http "$CLUSTER/_cluster/health"
PROXY_PORT=$(free_port)
python3 "$HERE/counting_proxy.py" "$PROXY_PORT" "$CLUSTER" "$WORK/calls.log" &
PIDS+=($!)
wait_http "http://127.0.0.1:$PROXY_PORT/_cluster/health"

# A reference relay on the same machine: nginx proxy_pass to the same cluster, so the ratio the
# console reaches can be read against what a C reverse proxy reaches here.
NGINX_PORT=$(free_port)
mkdir -p "$WORK/nginx"
cat >"$WORK/nginx/nginx.conf" <<NGINX
worker_processes auto;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $WORK/nginx/body; proxy_temp_path $WORK/nginx/proxy;
  fastcgi_temp_path $WORK/nginx/fastcgi; uwsgi_temp_path $WORK/nginx/uwsgi; scgi_temp_path $WORK/nginx/scgi;
  upstream cluster { server ${CLUSTER#http://}; keepalive 64; }
  server {
    listen 127.0.0.1:$NGINX_PORT;
    location / { proxy_pass http://cluster; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
NGINX
# SIGTERM (the cleanup's kill) makes the master stop its workers too.
nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -g "daemon off;" &
PIDS+=($!)
wait_http "http://127.0.0.1:$NGINX_PORT/_cluster/health"
NGINX_RELAY="http://127.0.0.1:$NGINX_PORT"

PORT=$(free_port)
cat >"$WORK/admin-console.yaml" <<YAML
server:
  host: 127.0.0.1
  port: $PORT
  static_dir: $WORK/no-web-app
observability:
  log_level: error
  log_format: json
internal_history:
  sample_interval: 1h
clusters:
  - id: direct
    name: osmem
    url: $CLUSTER
  - id: counted
    name: osmem behind the counting proxy
    url: http://127.0.0.1:$PROXY_PORT
YAML
"$BIN" --config "$WORK/admin-console.yaml" >"$WORK/admin-console.log" 2>&1 &
APP_PID=$!
PIDS+=($APP_PID)
APP="http://127.0.0.1:$PORT"
wait_http "$APP/api/live"
RELAY="$APP/api/clusters/direct/proxy"
# The console refuses relayed requests without it (same-origin check, docs/admin-console.md);
# direct and nginx runs send it too, so every column measures the same request.
CONSOLE_HEADER='X-Requested-By: admin-console'

rps() { wrk -t2 -H "$CONSOLE_HEADER" -c"$1" -d"${SECONDS_PER_RUN}s" "$2" | awk '/Requests\/sec/ {print $2}'; }
p50_us() {
  wrk -t1 -H "$CONSOLE_HEADER" -c"$1" -d"${SECONDS_PER_RUN}s" --latency "$2" | awk '/^ +50%/ {
    v=$2; if (v ~ /us$/) {sub(/us/,"",v); print v} else if (v ~ /ms$/) {sub(/ms/,"",v); print v*1000} else {sub(/s/,"",v); print v*1000000} }'
}
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$APP_PID/status"; }
peak_kb() { awk '/^VmHWM/ {print $2}' "/proc/$APP_PID/status"; }
reset_peak() { echo 5 >"/proc/$APP_PID/clear_refs"; }
mb() { awk -v kb="$1" 'BEGIN {printf "%.1f MiB", kb/1024}'; }

echo "== relay throughput, _cluster/health, 32 connections (${SECONDS_PER_RUN}s each)"
curl -fs -H "$CONSOLE_HEADER" -o /dev/null "$RELAY/_cluster/health"
DIRECT_RPS=$(rps 32 "$CLUSTER/_cluster/health")
RELAY_RPS=$(rps 32 "$RELAY/_cluster/health")
NGINX_RPS=$(rps 32 "$NGINX_RELAY/_cluster/health")
awk -v d="$DIRECT_RPS" -v r="$RELAY_RPS" -v n="$NGINX_RPS" 'BEGIN {printf "  direct %10.0f req/s | relay %10.0f req/s | ratio %.2fx (goal >= 0.6x) | reference: nginx proxy_pass %.0f req/s, %.2fx\n", d, r, r/d, n, n/d}'

echo "== added latency, 1 connection, p50"
DIRECT_P50=$(p50_us 1 "$CLUSTER/_cluster/health")
RELAY_P50=$(p50_us 1 "$RELAY/_cluster/health")
NGINX_P50=$(p50_us 1 "$NGINX_RELAY/_cluster/health")
awk -v d="$DIRECT_P50" -v r="$RELAY_P50" -v n="$NGINX_P50" 'BEGIN {printf "  direct %8.0f us | relay %8.0f us | added %6.0f us (goal < 40 us) | reference: nginx adds %.0f us\n", d, r, r-d, n-d}'

echo "== 36 MB response: peak memory of admin-console over idle"
SIZE=$(python3 "$HERE/seed_large.py" "$CLUSTER" 37)
BIG="big/_search?size=$SIZE&sort=n:asc"
BYTES=$(curl -fs -o /dev/null -w '%{size_download}' "$CLUSTER/$BIG")
echo "  response: $(mb $((BYTES / 1024))) from the cluster"
sleep 1
IDLE=$(rss_kb)
reset_peak
T_DIRECT=$(curl -fs -o /dev/null -w '%{time_total}' "$CLUSTER/$BIG")
T_RELAY=$(curl -fs -H "$CONSOLE_HEADER" -o /dev/null -w '%{time_total}' "$RELAY/$BIG")
ONE=$(( $(peak_kb) - IDLE ))
reset_peak
CURLS=()
for _ in $(seq 8); do curl -fs -H "$CONSOLE_HEADER" -o /dev/null "$RELAY/$BIG" & CURLS+=($!); done
wait "${CURLS[@]}"
EIGHT=$(( $(peak_kb) - IDLE ))
echo "  idle RSS $(mb "$IDLE")"
echo "  1 at a time: +$(mb "$ONE") (goal < +10 MB) | direct ${T_DIRECT}s, relay ${T_RELAY}s"
echo "  8 at a time: +$(mb "$EIGHT") (goal < +30 MB)"

echo "== gzip to a browser (Accept-Encoding: gzip), 36 MB response"
reset_peak
read -r GZ_FIRST GZ_TOTAL GZ_SIZE < <(curl -fs -H "$CONSOLE_HEADER" -o /dev/null -H 'Accept-Encoding: gzip' -w '%{time_starttransfer} %{time_total} %{size_download}\n' "$RELAY/$BIG")
GZ_PEAK=$(( $(peak_kb) - IDLE ))
read -r ID_FIRST ID_TOTAL < <(curl -fs -H "$CONSOLE_HEADER" -o /dev/null -w '%{time_starttransfer} %{time_total}\n' "$RELAY/$BIG")
echo "  identity: first byte ${ID_FIRST}s, done ${ID_TOTAL}s, $(mb $((BYTES / 1024)))"
echo "  gzip:     first byte ${GZ_FIRST}s, done ${GZ_TOTAL}s, $(mb $((GZ_SIZE / 1024))) on the wire, peak +$(mb "$GZ_PEAK") (streamed, not buffered)"

echo "== metrics snapshot (internal): cluster calls and latency"
: >"$WORK/calls.log"
# A measurement is shared for 1 s between callers: wait past that so each snapshot is fresh.
for _ in $(seq 8); do curl -fs -o /dev/null -w '%{time_total}\n' "$APP/api/clusters/direct/metrics" >>"$WORK/fresh.txt"; curl -fs -o /dev/null "$APP/api/clusters/counted/metrics"; sleep 1.1; done
sleep 0.5
python3 - "$WORK/calls.log" "$WORK/fresh.txt" <<'PY'
import json, statistics, sys
fresh = sorted(float(line) for line in open(sys.argv[2]))
print(f"  fresh snapshot (three calls, nothing shared), 1 connection: median {statistics.median(fresh) * 1000:.2f} ms")
calls = [json.loads(line) for line in open(sys.argv[1])]
calls.sort(key=lambda c: c["start"])
groups = [calls[i:i + 3] for i in range(0, len(calls), 3)]
parallel = sum(1 for g in groups if len(g) == 3 and max(c["start"] for c in g) < min(c["end"] for c in g))
paths = sorted({c["path"].split("?")[0] for c in calls})
print(f"  {len(calls) / 8:.1f} cluster calls per snapshot (goal <= 3), {parallel}/{len(groups)} snapshots with all calls in flight together; paths {paths}")
PY
DIRECT_HEALTH=$(p50_us 8 "$CLUSTER/_cluster/health")
DIRECT_STATS=$(p50_us 8 "$CLUSTER/_cluster/stats")
SNAP_P50=$(p50_us 8 "$APP/api/clusters/direct/metrics")
awk -v d="$DIRECT_HEALTH" -v t="$DIRECT_STATS" -v s="$SNAP_P50" 'BEGIN {printf "  8 connections p50: direct _cluster/health %.2f ms, direct _cluster/stats %.2f ms | snapshot %.2f ms (goal < 10 ms; concurrent callers share one measurement per second)\n", d/1000, t/1000, s/1000}'
