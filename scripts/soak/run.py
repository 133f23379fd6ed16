#!/usr/bin/env python3
"""`make soak`: every service under steady load with its real dependencies, then the long
versions of the faults, then the fuzzers; writes bench/soak/results.md.

Environment:
  SOAK_MINUTES         steady-load minutes (default 10; 1 for a quick run)
  SOAK_SEGMENT_SECONDS length of one measured segment (default 60: figures per minute)
  SOAK_FAULT_SECONDS   how long each dependency stays down in the fault phase (default 20)
  SOAK_SSE_CLIENTS     SSE clients connecting and leaving (default 1000)
  SOAK_INGRESSES       ingresses in the real kube-apiserver (default 10000; test-support's
                       kube-cluster behind its fault proxy, kube-test-server's sample written in)
  SOAK_FUZZ_SECONDS    seconds per fuzz target for scripts/fuzz.sh (default 120; 0 skips)
  SOAK_SKIP_BUILD=1    use the binaries already in target/fast
  SOAK_BIN_DIR         take the binaries from this directory instead of target/fast (implies
                       SOAK_SKIP_BUILD; e.g. to compare two builds of a service)
  SOAK_SERVICES        comma-separated subset of admin-console,authproxy,ingress-dash (default all
                       three): only their dependencies, load, faults and SIGTERM steps run, and the
                       results go to bench/soak/results-<services>.{md,json} so the full run's
                       results.md stays as it is
  SOAK_MALLOC_PROBE=1  at the end of every segment, gdb asks each service's glibc allocator for its
                       totals (malloc_stats: bytes held from the system vs bytes in live
                       allocations), beside RSS: tells growth of live data from allocator retention
                       (glibc's allocator only: a binary with another global allocator, such as
                       mimalloc, shows glibc's near-empty totals)

Standard library only; wrk (/usr/bin/wrk) drives the HTTP load, asyncio clients the SSE load.
Every process it starts is recorded with its PID and stopped at the end, even on Ctrl+C.
"""

import asyncio
import concurrent.futures
import datetime
import http.client
import json
import os
import platform
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import faults  # noqa: E402
import report  # noqa: E402
from common import (  # noqa: E402
    ROOT, Procs, free_port, http_request, log, rss_kib, open_fds, wait_for,
)

MINUTES = float(os.environ.get("SOAK_MINUTES", "10"))
SEGMENT = int(os.environ.get("SOAK_SEGMENT_SECONDS", "60"))
FAULT_SECONDS = int(os.environ.get("SOAK_FAULT_SECONDS", "20"))
SSE_CLIENTS = int(os.environ.get("SOAK_SSE_CLIENTS", "1000"))
INGRESSES = int(os.environ.get("SOAK_INGRESSES", "10000"))
NAMESPACES = 100
FUZZ_SECONDS = int(os.environ.get("SOAK_FUZZ_SECONDS", "120"))
KUBE_CACHE = os.path.join(ROOT, ".cache", "kube")
ALL_SERVICES = ["admin-console", "authproxy", "ingress-dash"]
SERVICES = [name.strip() for name in os.environ.get("SOAK_SERVICES", ",".join(ALL_SERVICES)).split(",")
            if name.strip()]
if not SERVICES or any(name not in ALL_SERVICES for name in SERVICES):
    sys.exit(f"soak: SOAK_SERVICES must name some of {', '.join(ALL_SERVICES)}, "
             f"not {os.environ.get('SOAK_SERVICES')!r}")
SERVICES = [name for name in ALL_SERVICES if name in SERVICES]
MALLOC_PROBE = os.environ.get("SOAK_MALLOC_PROBE") == "1"
PROFILE = "fast"
BIN = os.environ.get("SOAK_BIN_DIR") or os.path.join(ROOT, "target", PROFILE)
LUA = os.path.join(ROOT, "scripts", "soak", "mix.lua")
# Password of the Basic user `demo` (bcrypt cost 10), as `make run` has it.
DEMO_HASH = "$2b$10$uAn0p5y/S2uFK1/2fyCGOukyhduTOSviLChHMBbuocdmD0J0gzGTK"
DEMO_BASIC = "Basic ZGVtbzpkZW1vLXBhc3N3b3Jk"  # demo:demo-password
SESSION_SECRET = "soak-session-secret-at-least-32-bytes-long"


def build():
    if os.environ.get("SOAK_SKIP_BUILD") == "1" or os.environ.get("SOAK_BIN_DIR"):
        log(f"build: skipped; binaries from {BIN}")
        return
    # ingress-dash's Kubernetes API: test-support's kube-cluster (a real kube-apiserver and
    # etcd behind the fault proxy); kube-test-server prints the sample written into it.
    packages = SERVICES + (["kube-test-server", "test-support"] if "ingress-dash" in SERVICES else [])
    log(f"build: cargo build --profile {PROFILE} ({', '.join(packages)})")
    subprocess.run(
        ["cargo", "build", "--profile", PROFILE, "--bins"]
        + [arg for package in packages for arg in ("-p", package)],
        cwd=ROOT, check=True)


def osmem_binary():
    lib = os.path.join(ROOT, ".venv", "lib")
    for python in sorted(os.listdir(lib)):
        candidate = os.path.join(lib, python, "site-packages/osmem_server/bin/osmem-server")
        if os.path.exists(candidate):
            return candidate
    sys.exit("osmem-server is not installed in .venv: run `make deps`")


class Stack:
    """Every dependency and service, on free ports, in one scratch directory."""

    def __init__(self, procs, scratch):
        self.procs, self.scratch = procs, scratch
        self.ports = {name: free_port() for name in [
            "osmem", "redis", "exporter", "prometheus", "kube", "oidc", "console",
            "forward", "standalone", "dash"]}
        # Each service's internal listener (`server.internal_port`): /_metrics, and authproxy's
        # forward_auth check.
        for name in ["console", "forward", "standalone", "dash"]:
            self.ports[internal(name)] = free_port()

    def url(self, name):
        if name == "kube":  # the fault proxy before the API server (plain HTTP, bring the token)
            return self.kube["proxyUrl"]
        return f"http://127.0.0.1:{self.ports[name]}"

    def internal_url(self, name):
        """The internal listener of service port `name` (/_metrics, authproxy's check)."""
        return self.url(internal(name))

    # Dependencies -------------------------------------------------------------------------
    def start_osmem(self):
        self.procs.start("osmem", [osmem_binary(), "-addr", f"127.0.0.1:{self.ports['osmem']}",
                                   "-no-stdin-watch", "-no-ja", "-parent-pid", str(os.getpid())])
        wait_for("osmem", 30, lambda: http_request(self.url("osmem"), "/_cluster/health")[0] == 200)

    def start_redis(self):
        # Append-only with fsync: sessions survive a restart, as with a production Redis.
        data = os.path.join(self.scratch, "redis")
        os.makedirs(data, exist_ok=True)
        self.procs.start("redis", ["redis-server", "--bind", "127.0.0.1", "--port",
                                   str(self.ports["redis"]), "--dir", data, "--save", "",
                                   "--appendonly", "yes", "--appendfsync", "always"])
        wait_for("redis", 30, lambda: redis_ping(self.ports["redis"]))

    def start_exporter(self):
        self.procs.start("exporter", ["prometheus-elasticsearch-exporter",
                                      f"--es.uri={self.url('osmem')}",
                                      f"--web.listen-address=127.0.0.1:{self.ports['exporter']}"])
        wait_for("exporter", 30, lambda: http_request(self.url("exporter"), "/metrics")[0] == 200)

    def start_prometheus(self):
        config = os.path.join(self.scratch, "prometheus.yml")
        services = [f"127.0.0.1:{self.ports[internal(n)]}" for n in service_ports()]
        with open(config, "w") as f:
            f.write(
                "global: {scrape_interval: 5s}\nscrape_configs:\n"
                f"  - job_name: elasticsearch\n    static_configs: [{{targets: ['127.0.0.1:{self.ports['exporter']}'], labels: {{cluster: monitored}}}}]\n"
                f"  - job_name: services\n    metrics_path: /_metrics\n    static_configs: [{{targets: {json.dumps(services)}}}]\n")
        storage = tempfile.mkdtemp(prefix="prometheus-", dir=self.scratch)
        self.procs.start("prometheus", ["prometheus", f"--config.file={config}",
                                        f"--storage.tsdb.path={storage}",
                                        f"--web.listen-address=127.0.0.1:{self.ports['prometheus']}"])
        wait_for("prometheus", 60, lambda: http_request(self.url("prometheus"), "/-/ready")[0] == 200)

    def start_kube(self):
        """A real kube-apiserver and etcd (test-support's kube-cluster, built from the Go module
        proxy into .cache/kube by scripts/install-kube.sh) behind its fault proxy, with
        kube-test-server's sample ingresses written in through the API."""
        built = os.path.isdir(KUBE_CACHE) and any(
            name.startswith("kube-apiserver-") for name in os.listdir(KUBE_CACHE))
        if not built:
            subprocess.run([os.path.join(ROOT, "scripts", "install-kube.sh")], cwd=ROOT, check=True)
        self.procs.start("kube-cluster", [
            os.path.join(BIN, "kube-cluster"), "--fault-proxy", "--until-signal"])
        line = {}

        def printed():
            with open(self.procs.log_path("kube-cluster")) as f:
                found = [text for text in f if text.startswith("{")]
            if found:
                line.update(json.loads(found[0]))
            return bool(found)
        wait_for("kube-cluster", 240, printed)
        self.kube = line
        self.kube_headers = {"authorization": f"Bearer {line['token']}"}
        printed = subprocess.run(
            [os.path.join(BIN, "kube-test-server"), "--print-objects", "--only-ingresses",
             "--sample", str(INGRESSES), "--namespaces", str(NAMESPACES)],
            check=True, capture_output=True, text=True).stdout
        objects = [json.loads(text) for text in printed.splitlines() if text.strip()]
        started = time.monotonic()
        write_objects(self.url("kube"), self.kube_headers, objects)
        log(f"kube: {len(objects)} objects written in {time.monotonic() - started:.0f} s")

    def start_oidc(self):
        redirects = [f"{self.url(n)}/auth/callback" for n in ["forward", "standalone"]]
        config = {
            "listen": f"127.0.0.1:{self.ports['oidc']}",
            "clients": [{"client_id": "soak", "client_secret": "soak-client-secret",
                         "redirect_uris": redirects,
                         "post_logout_redirect_uris": [self.url("forward") + "/"]}],
            "users": {"alice": {"email": "alice@example.com", "name": "Alice",
                                "groups": ["admins"]}},
        }
        self.procs.start("oidc", ["node", os.path.join(ROOT, "test-support/oidc/server.js")],
                         env={**os.environ, "OIDC_TEST_CONFIG": json.dumps(config)})
        wait_for("oidc", 60, lambda: http_request(
            self.url("oidc"), "/.well-known/openid-configuration")[0] == 200)

    # Services -----------------------------------------------------------------------------
    def kubeconfig(self):
        """A kubeconfig for ingress-dash: the fault proxy and the admin's token."""
        return self.write("kubeconfig", "\n".join([
            "apiVersion: v1", "kind: Config",
            "clusters:", "- name: soak", "  cluster:", f"    server: {self.url('kube')}",
            "users:", "- name: soak", "  user:", f"    token: {self.kube['token']}",
            "contexts:", "- name: soak", "  context:", "    cluster: soak", "    user: soak",
            "current-context: soak", ""]))

    def write(self, name, text):
        path = os.path.join(self.scratch, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def start_console(self):
        config = self.write("admin-console.yaml", f"""server:
  host: 127.0.0.1
  port: {self.ports['console']}
  internal_port: {self.ports[internal('console')]}
  shutdown_timeout: 10s
  static_dir: {ROOT}/admin-console/web/dist
observability: {{log_level: warn, log_format: json, metrics_enabled: true}}
internal_history: {{sample_interval: 5s, retention: 1h}}
clusters:
  - {{id: main, name: Main, url: "{self.url('osmem')}"}}
  - id: monitored
    name: Monitored
    url: "{self.url('osmem')}"
    metrics_source: external_metrics
    metrics_server_url: "{self.url('prometheus')}"
    metrics_server_job_name: elasticsearch
    metrics_server_labels: {{cluster: monitored}}
""")
        self.procs.start("admin-console", [os.path.join(BIN, "admin-console"), "--config", config])
        wait_for("admin-console", 60, lambda: http_request(self.url("console"), "/api/live")[0] == 200)

    def start_authproxy(self, name, mode):
        port = self.ports[name]
        config = self.write(f"authproxy-{name}.yaml", f"""server:
  host: 127.0.0.1
  port: {port}
  internal_port: {self.ports[internal(name)]}
  mode: {mode}
  shutdown_timeout: 10s
  trusted_proxies: [127.0.0.1]
observability: {{log_level: warn, log_format: json, metrics_enabled: true}}
oidc:
  enabled: true
  issuer_url: "{self.url('oidc')}"
  client_id: soak
  client_secret: soak-client-secret
  redirect_url: "http://127.0.0.1:{port}/auth/callback"
  scopes: [openid, email, profile, groups]
session: {{secret: {SESSION_SECRET}, ttl: 2h}}
cache:
  backend: redis
  redis_url: "redis://127.0.0.1:{self.ports['redis']}"
  encryption_key: 0123456789abcdef0123456789abcdef
user_management: {{enabled: false}}
search: {{url: "{self.url('osmem')}"}}
basic_auth:
  users:
    - {{username: demo, password_hash: "{DEMO_HASH}", email: demo@example.com, groups: [admins]}}
  max_failures_per_address: 1000000
""")
        self.procs.start(f"authproxy-{name}", [os.path.join(BIN, "authproxy"), "--config", config])
        wait_for(f"authproxy {name}", 60, lambda: http_request(self.url(name), "/healthz")[0] == 200)

    def start_dash(self):
        config = self.write("ingress-dash.yaml", f"""server:
  host: 127.0.0.1
  port: {self.ports['dash']}
  internal_port: {self.ports[internal('dash')]}
  shutdown_timeout: 10s
  static_dir: {ROOT}/ingress-dash/web/dist
observability: {{log_level: warn, log_format: json, metrics_enabled: true}}
kubernetes:
  kubeconfig: "{self.kubeconfig()}"
  watch_grace_period: 10s
# One address (loopback) stands for 1,000 browsers here: the per-client bucket would refuse
# them as one client.
rate_limit: {{enabled: false}}
stream: {{max_clients: {max(SSE_CLIENTS * 2, 100)}}}
""")
        self.procs.start("ingress-dash", [os.path.join(BIN, "ingress-dash"), "--config", config])
        wait_for("ingress-dash", 60, lambda: http_request(self.url("dash"), "/api/live")[0] == 200)


def write_objects(base, headers, objects, threads=16):
    """Server-side apply of every object (namespaces first: one kind after another), `threads`
    requests at once; raises on the first refusal."""
    host = base.split("://", 1)[1]
    local = threading.local()

    def apply(obj):
        connection = getattr(local, "connection", None) or http.client.HTTPConnection(host, timeout=60)
        local.connection = connection
        kind, meta = obj["kind"], obj["metadata"]
        plural = {"Namespace": "namespaces", "Ingress": "ingresses"}[kind]
        group = "/api/v1" if obj["apiVersion"] == "v1" else f"/apis/{obj['apiVersion']}"
        scope = f"/namespaces/{meta['namespace']}" if kind != "Namespace" else ""
        path = f"{group}{scope}/{plural}/{meta['name']}?fieldManager=soak&force=true"
        spec = {key: value for key, value in obj.items() if key != "status"}
        connection.request("PATCH", path, body=json.dumps(spec), headers={
            **headers, "content-type": "application/apply-patch+yaml"})
        response = connection.getresponse()
        text = response.read().decode("utf-8", "replace")
        if response.status not in (200, 201):
            raise RuntimeError(f"apply {path}: {response.status} {text[:300]}")

    kinds = list(dict.fromkeys(obj["kind"] for obj in objects))
    for kind in kinds:
        batch = [obj for obj in objects if obj["kind"] == kind]
        with concurrent.futures.ThreadPoolExecutor(threads) as pool:
            for _ in pool.map(apply, batch):
                pass


def internal(name):
    """The port name of `name`'s internal listener."""
    return f"{name}-internal"


def service_ports():
    """The port names of the selected services."""
    ports = {"admin-console": ["console"], "authproxy": ["forward", "standalone"],
             "ingress-dash": ["dash"]}
    return [port for name in SERVICES for port in ports[name]]


def malloc_totals(pid, log_path):
    """glibc's totals for `pid` (`malloc_stats()` called through gdb, which prints to the
    process's stderr, i.e. its log): bytes the allocator holds from the system and bytes in
    live allocations, over every arena and mmap. None when gdb cannot attach."""
    try:
        before = os.path.getsize(log_path)
        subprocess.run(["gdb", "-p", str(pid), "-batch", "-nx", "-ex", "call (void)malloc_stats()"],
                       capture_output=True, timeout=60)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            with open(log_path, "rb") as f:
                f.seek(before)
                text = f.read().decode(errors="replace")
            total = re.search(r"Total \(incl\. mmap\):\s*system bytes\s*=\s*(\d+)\s*"
                              r"in use bytes\s*=\s*(\d+)", text)
            if total:
                arenas = len(re.findall(r"^Arena \d+:", text, re.M))
                return {"system_kib": int(total.group(1)) // 1024,
                        "in_use_kib": int(total.group(2)) // 1024, "arenas": arenas}
            time.sleep(0.2)
    except (OSError, subprocess.SubprocessError):
        return None
    return None


# What the ingress-dash probe keeps from /_metrics at each segment's end.
DASH_SERIES = re.compile(r"^(ingress_dash_(stream_clients|watchers|stream_events_sent_total|"
                         r"stream_resyncs_total|cache_hits_total|cache_misses_total|"
                         r"watch_restarts_total)|process_resident_memory_bytes)\b")


def dash_metrics(base):
    status, body = http_request(base, "/_metrics")[:2]
    if status != 200:
        return None
    text = body.decode(errors="replace") if isinstance(body, bytes) else body
    values = {}
    for line in text.splitlines():
        if DASH_SERIES.match(line):
            name, _, value = line.rpartition(" ")
            name = name.split("{", 1)[0]  # summed over labels (e.g. events by kind)
            try:
                values[name] = values.get(name, 0.0) + float(value)
            except ValueError:
                pass
    return values


def redis_ping(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def sign_in(base, user="alice"):
    """The OIDC browser flow with a cookie jar of its own; returns the session Cookie header."""
    jar = {}
    url = f"{base}/auth/start?rd=%2F&login_hint={user}"
    for _ in range(20):
        parts = urllib.parse.urlsplit(url)
        path = parts.path + ("?" + parts.query if parts.query else "")
        host = f"{parts.scheme}://{parts.netloc}"
        # Like a browser, cookies of 127.0.0.1 go to every port.
        cookies = "; ".join(f"{k}={v}" for k, v in jar.items())
        status, body, headers = http_request(host, path, headers={
            "Accept": "text/html", **({"Cookie": cookies} if cookies else {})}, with_headers=True)
        for name, value in headers:
            if name.lower() == "set-cookie":
                pair = value.split(";", 1)[0]
                k, _, v = pair.partition("=")
                jar[k.strip()] = v.strip()
        location = next((v for n, v in headers if n.lower() == "location"), None)
        if status in (301, 302, 303, 307, 308) and location:
            url = urllib.parse.urljoin(url, location)
            if url.startswith(base) and "/auth/callback" not in url:
                break
            continue
        break
    session = jar.get("_authproxy_session")
    if not session:
        raise RuntimeError(f"sign-in at {base} gave no session cookie (last {status}: {body[:200]!r})")
    return f"_authproxy_session={session}"


# Load ---------------------------------------------------------------------------------------
def wrk(url, mix, seconds, connections=16, threads=1):
    """One wrk run with scripts/soak/mix.lua over `mix` (a list of requests); its summary."""
    fd, mix_file = tempfile.mkstemp(prefix="soak-mix-", suffix=".txt")
    with os.fdopen(fd, "w") as f:
        for r in mix:
            headers = "|".join(f"{k}:{v}" for k, v in r.get("headers", {}).items())
            f.write(f"{r['method']}\t{r['path']}\t{headers}\t{r.get('body', '')}\n")
    env = {**os.environ, "SOAK_MIX_FILE": mix_file}
    out = subprocess.run(
        ["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{seconds}s",
         "--timeout", "10s", "-s", LUA, url],
        env=env, capture_output=True, text=True)
    os.unlink(mix_file)
    match = re.search(r"SOAK_JSON (\{.*\})", out.stdout)
    if not match:
        return {"requests": 0, "errors": {"wrk": 1}, "p50_ms": None, "p99_ms": None,
                "raw": out.stdout + out.stderr}
    return json.loads(match.group(1))


def console_mix():
    json_headers = {"x-requested-by": "admin-console", "content-type": "application/json"}
    relay = "/api/clusters/main/proxy"
    return [
        {"method": "GET", "path": f"{relay}/_cluster/health", "headers": json_headers},
        {"method": "GET", "path": f"{relay}/soak/_search?size=5", "headers": json_headers},
        {"method": "POST", "path": f"{relay}/soak/_doc", "headers": json_headers,
         "body": json.dumps({"message": "soak", "n": 1})},
        {"method": "GET", "path": f"{relay}/_cat/indices?format=json", "headers": json_headers},
        {"method": "GET", "path": "/api/clusters", "headers": {}},
        {"method": "GET", "path": "/api/clusters/main/overview", "headers": {}},
        {"method": "GET", "path": "/api/clusters/main/indices", "headers": {}},
        {"method": "GET", "path": "/api/clusters/monitored/metrics", "headers": {}},
        {"method": "GET", "path": "/api/clusters/main/metrics/history", "headers": {}},
        {"method": "GET", "path": "/", "headers": {"accept": "text/html"}},
    ]


def authproxy_mix(cookie, standalone):
    path = "/_cluster/health" if standalone else "/"
    basic = {"authorization": DEMO_BASIC}
    session = {"cookie": cookie, "accept": "application/json"}
    return [
        {"method": "GET", "path": path, "headers": basic},
        {"method": "GET", "path": path, "headers": session},
        {"method": "GET", "path": path, "headers": basic},
        {"method": "GET", "path": path, "headers": session},
    ]


def dash_mix():
    mix = [{"method": "GET", "path": f"/api/ingresses?namespaces=team-{n:03}", "headers": {}}
           for n in range(0, NAMESPACES, 7)]
    return mix + [
        {"method": "GET", "path": "/api/namespaces", "headers": {}},
        {"method": "GET", "path": "/api/health", "headers": {}},
        {"method": "GET", "path": "/", "headers": {"accept": "text/html"}},
    ]


class Churn(threading.Thread):
    """Replaces sample ingresses through the Kubernetes API at `rate` per second."""

    def __init__(self, kube_url, headers, rate=20, namespace_index=None):
        super().__init__(daemon=True)
        self.kube_url, self.rate, self.namespace_index = kube_url, rate, namespace_index
        self.headers = {**headers, "content-type": "application/json"}
        self.stop_flag = threading.Event()
        self.changes = self.failures = 0

    def run(self):
        tick = 0
        while not self.stop_flag.is_set():
            index = random.randrange(INGRESSES)
            if self.namespace_index is not None:  # one namespace's ingresses only
                index = index // NAMESPACES * NAMESPACES + self.namespace_index
            namespace, name = f"team-{index % NAMESPACES:03}", f"app-{index:05}"
            body = {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
                    "metadata": {"name": name, "namespace": namespace,
                                 "labels": {"app": name, "churn": str(tick)}},
                    "spec": {"rules": [{"host": f"{name}.{namespace}.example.com", "http": {
                        "paths": [{"path": "/", "pathType": "Prefix", "backend": {
                            "service": {"name": name, "port": {"number": 80}}}}]}}]}}
            status = http_request(
                self.kube_url,
                f"/apis/networking.k8s.io/v1/namespaces/{namespace}/ingresses/{name}",
                method="PUT", body=json.dumps(body), headers=self.headers)[0]
            if status in (200, 201):
                self.changes += 1
            else:
                self.failures += 1
            tick += 1
            time.sleep(1 / self.rate)

    def stop(self):
        self.stop_flag.set()
        self.join(5)


class SseClients(threading.Thread):
    """`count` asyncio SSE clients, each connecting to one namespace's stream for a random
    10-50 s, leaving and connecting again until stopped."""

    def __init__(self, host, port, count, namespaces):
        super().__init__(daemon=True)
        self.host, self.port, self.count, self.namespaces = host, port, count, namespaces
        self.stop_flag = threading.Event()
        self.sessions = self.events = self.errors = 0
        self.error_kinds = {}
        self.open = 0

    def run(self):
        asyncio.run(self.main())

    async def main(self):
        await asyncio.gather(*(self.client(i) for i in range(self.count)))

    def error(self, kind):
        self.errors += 1
        self.error_kinds[kind] = self.error_kinds.get(kind, 0) + 1

    async def client(self, index):
        await asyncio.sleep(random.uniform(0, 10))  # spread the first connections
        while not self.stop_flag.is_set():
            namespace = f"team-{random.randrange(self.namespaces):03}"
            lifetime = random.uniform(10, 50)
            writer = None
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection(self.host, self.port), 10)
                writer.write(
                    f"GET /api/ingresses/stream?namespaces={namespace} HTTP/1.1\r\n"
                    f"Host: {self.host}:{self.port}\r\nAccept: text/event-stream\r\n\r\n".encode())
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 15)
                status = head.split(b" ", 2)[1]
                if status != b"200":
                    self.error(f"status {status.decode()}")
                    continue
                self.open += 1
                self.sessions += 1
                end = time.monotonic() + lifetime
                try:
                    while time.monotonic() < end and not self.stop_flag.is_set():
                        try:
                            chunk = await asyncio.wait_for(reader.read(65536), 1)
                        except asyncio.TimeoutError:
                            continue
                        if not chunk:
                            self.error("stream ended by the server")
                            break
                        self.events += chunk.count(b"\nevent: ") + chunk.startswith(b"event: ")
                finally:
                    self.open -= 1
            except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError) as error:
                self.error(type(error).__name__)
                await asyncio.sleep(1)
            finally:
                if writer is not None:
                    writer.close()

    def stop(self):
        self.stop_flag.set()
        self.join(120)


def steady_load(stack, cookies):
    """The selected services (all three by default) under load at once for SOAK_MINUTES, in
    segments."""
    services = {}
    if "admin-console" in SERVICES:
        services["admin-console"] = {"pid": stack.procs.pid("admin-console"), "runs": [
            (stack.url("console"), console_mix())]}
    if "authproxy" in SERVICES:
        services["authproxy"] = {"pid": stack.procs.pid("authproxy-forward"), "pids": {
            "forward_auth": stack.procs.pid("authproxy-forward"),
            "standalone": stack.procs.pid("authproxy-standalone")}, "runs": [
            # The forward_auth check is answered on the internal listener only.
            (stack.internal_url("forward"), authproxy_mix(cookies["forward"], False)),
            (stack.url("standalone"), authproxy_mix(cookies["standalone"], True))]}
    if "ingress-dash" in SERVICES:
        services["ingress-dash"] = {"pid": stack.procs.pid("ingress-dash"), "runs": [
            (stack.url("dash"), dash_mix())]}
    # Idle: after a short warm-up (connection pools to Redis and the clusters exist, as in
    # any running service), with no request in flight.
    log("warm-up: 5 s of the same mixes")
    warm = [threading.Thread(target=wrk, args=(url, mix, 5, 8))
            for service in services.values() for url, mix in service["runs"]]
    for thread in warm:
        thread.start()
    for thread in warm:
        thread.join()
    time.sleep(2)  # let the last answers and closes settle before counting
    for name, service in services.items():
        pids = service.get("pids", {name: service["pid"]})
        service["idle_fds"] = {label: open_fds(pid) for label, pid in pids.items()}
        service["segments"] = []
    dash = "ingress-dash" in services
    if dash:
        churn = Churn(stack.url("kube"), stack.kube_headers)
        churn.start()
        sse = SseClients("127.0.0.1", stack.ports["dash"], SSE_CLIENTS, NAMESPACES)
        sse.start()
    total = int(MINUTES * 60)
    started = time.monotonic()
    segment = 0
    while time.monotonic() - started < total - 1:
        seconds = max(1, min(SEGMENT, int(total - (time.monotonic() - started))))
        segment += 1
        log(f"steady load: segment {segment}, {seconds} s"
            + (f"; {sse.open} SSE streams open" if dash else ""))
        results = {}
        threads = []
        for name, service in services.items():
            for i, (url, mix) in enumerate(service["runs"]):
                def run(name=name, i=i, url=url, mix=mix):
                    results[(name, i)] = wrk(url, mix, seconds, connections=8)
                threads.append(threading.Thread(target=run))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for name, service in services.items():
            pids = service.get("pids", {name: service["pid"]})
            runs = [results[(name, i)] for i in range(len(service["runs"]))]
            record = {
                "minute": round((time.monotonic() - started) / 60, 2),
                "runs": runs,
                "rss_kib": {label: rss_kib(pid) for label, pid in pids.items()},
            }
            if name == "ingress-dash":
                record["metrics"] = dash_metrics(stack.internal_url("dash"))
                record["sse_open"] = sse.open
                record["churn_changes"] = churn.changes
            if MALLOC_PROBE:
                record["malloc"] = {
                    label: malloc_totals(pid, stack.procs.log_path(process_name(name, label)))
                    for label, pid in pids.items()}
            service["segments"].append(record)
    if not dash:
        return finish_idle(services)
    log("steady load: stopping the SSE clients and the churn")
    sse.stop()
    churn.stop()
    services["ingress-dash"]["sse"] = {
        "clients": SSE_CLIENTS, "sessions": sse.sessions, "events": sse.events,
        "errors": sse.errors, "error_kinds": sse.error_kinds,
        "churn_changes": churn.changes, "churn_failures": churn.failures}
    # Upstream watches of ingress-dash once every client has left. Its own watchers first: 0
    # after the grace period (and the next heartbeat, at which a closed stream is noticed).
    # The fault proxy sees a watch its client closed only at its next write to it (a quiet
    # watch has none), so then it drops every watch still open: any watch ingress-dash still
    # wanted would be asked for again; none may be, and none may stay open.
    left = time.monotonic()
    grace_deadline = left + 90
    watchers = None
    while time.monotonic() < grace_deadline:
        watchers = (dash_metrics(stack.internal_url("dash")) or {}).get("ingress_dash_watchers")
        if watchers == 0:
            break
        time.sleep(1)
    idle_after = round(time.monotonic() - left, 1)
    control = stack.kube["controlUrl"]
    status, body = http_request(control, "/__test/faults", method="POST",
                                body=json.dumps({"drop_watches": True}),
                                headers={"content-type": "application/json"})[:2]
    asked_before = json.loads(body)["watch_requests"] if status == 200 else None
    time.sleep(20)  # time for a wanted watch to come back (retries back off from 1 s)
    status, body = http_request(control, "/__test/stats")[:2]
    stats = json.loads(body) if status == 200 else {}
    asked_again = (stats["watch_requests"] - asked_before
                   if asked_before is not None and "watch_requests" in stats else None)
    services["ingress-dash"]["watches_after"] = {
        "watchers": watchers, "seconds": idle_after,
        "rewatched_after_drop": asked_again, "open_watches": stats.get("open_watches"),
        "grace_period_s": 10, "heartbeat_s": 15}
    return finish_idle(services)


def process_name(service, label):
    """The Procs name of a service's process (`label` as in a service's `pids`)."""
    return {"forward_auth": "authproxy-forward",
            "standalone": "authproxy-standalone"}.get(label, service)


def finish_idle(services):
    # Back to idle: file descriptors. Idle pooled
    # connections close after their idle time-out (60-90 s), so this waits up to 120 s.
    def fds(service, name):
        return {label: open_fds(pid)
                for label, pid in service.get("pids", {name: service["pid"]}).items()}

    waited = time.monotonic()
    while time.monotonic() < waited + 120 and any(
            count is None or count > service["idle_fds"][label]
            for name, service in services.items() for label, count in fds(service, name).items()):
        time.sleep(1)
    for name, service in services.items():
        service["end_fds"] = fds(service, name)
        service["fds_settled_s"] = round(time.monotonic() - waited, 1)
    return services


def run_fuzz():
    script = os.path.join(ROOT, "scripts", "fuzz.sh")
    if FUZZ_SECONDS <= 0 or not os.path.exists(script):
        return {"skipped": True, "reason": "SOAK_FUZZ_SECONDS=0" if FUZZ_SECONDS <= 0
                else "scripts/fuzz.sh does not exist"}
    log(f"fuzz: bash scripts/fuzz.sh {FUZZ_SECONDS}")
    started = time.monotonic()
    out = subprocess.run(["bash", script, str(FUZZ_SECONDS)], cwd=ROOT,
                         capture_output=True, text=True)
    lines = [line for line in (out.stdout + out.stderr).splitlines() if line.strip()]
    return {"skipped": False, "exit": out.returncode, "seconds": round(time.monotonic() - started),
            "summary": [line for line in lines if re.search(r"runs|crash|fail|error", line, re.I)][-40:]}


def main():
    os.chdir(ROOT)
    for tool in ["wrk", "redis-server", "prometheus", "node", "prometheus-elasticsearch-exporter"]:
        if not shutil.which(tool):
            sys.exit(f"soak: {tool} is missing; run `make deps`")
    load_before = open("/proc/loadavg").read().split()[:3]
    started_at = datetime.datetime.now(datetime.timezone.utc)
    build()
    scratch = tempfile.mkdtemp(prefix="soak-")
    procs = Procs(os.path.join(scratch, "logs"))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    results = {"started": started_at.isoformat(timespec="seconds"), "minutes": MINUTES,
               "segment_s": SEGMENT, "fault_s": FAULT_SECONDS, "sse_clients": SSE_CLIENTS,
               "ingresses": INGRESSES, "load_before": load_before, "services_run": SERVICES,
               "bin_dir": os.environ.get("SOAK_BIN_DIR"),
               "command": " ".join(f"{k}={os.environ[k]}" for k in sorted(os.environ)
                                   if k.startswith("SOAK_")) + " make soak"}
    try:
        stack = Stack(procs, scratch)
        log(f"starting dependencies (scratch {scratch})")
        console, proxy, dash = (name in SERVICES for name in ALL_SERVICES)
        if console or proxy:
            stack.start_osmem()
        if proxy:
            stack.start_redis()
            stack.start_oidc()
        if console:
            stack.start_exporter()
        if dash:
            stack.start_kube()
        if console:
            stack.start_console()
        if proxy:
            stack.start_authproxy("forward", "forward_auth")
            stack.start_authproxy("standalone", "standalone")
        if dash:
            stack.start_dash()
        if console:
            stack.start_prometheus()
            wait_for("exporter series in Prometheus", 90, lambda: http_request(
                stack.url("console"), "/api/clusters/monitored/metrics")[0] == 200)
        cookies = ({name: sign_in(stack.url(name)) for name in ["forward", "standalone"]}
                   if proxy else {})
        log("all up: " + ", ".join(f"{n} pid {p}" for n, p in procs.pids().items()))
        results["pids"] = procs.pids()
        results["services"] = steady_load(stack, cookies)
        results["load_after_steady"] = open("/proc/loadavg").read().split()[:3]
        results["faults"] = faults.run_all(stack, cookies, FAULT_SECONDS, SseClients, Churn,
                                           SERVICES)
        results["sigterm"] = faults.sigterm_all(stack, SERVICES)
    finally:
        procs.stop_all()
    results["fuzz"] = run_fuzz()
    results["finished"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    results["load_end"] = open("/proc/loadavg").read().split()[:3]
    results["machine"] = {
        "cpus": os.cpu_count(), "kernel": platform.release(),
        "cpu": next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                     if l.startswith("model name")), "?"),
        "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
    }
    out_dir = os.path.join(ROOT, "bench", "soak")
    os.makedirs(out_dir, exist_ok=True)
    # A run of some services only does not replace the full run's results.
    stem = "results" if SERVICES == ALL_SERVICES else "results-" + "-".join(SERVICES)
    with open(os.path.join(out_dir, f"{stem}.json"), "w") as f:
        json.dump(results, f, indent=1, default=str)
    with open(os.path.join(out_dir, f"{stem}.md"), "w") as f:
        f.write(report.markdown(results))
    log(f"wrote bench/soak/{stem}.md (logs in {procs.log_dir})")
    return 0 if report.all_goals_met(results) else 1


if __name__ == "__main__":
    sys.exit(main())
