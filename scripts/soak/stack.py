"""The soak's stack: every dependency and service on free ports in one scratch directory, started
and stopped through common.Procs."""

import concurrent.futures
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

from common import ROOT, free_port, http_request, log, wait_for
from settings import (
    BIN, DEMO_HASH, INGRESSES, KUBE_CACHE, NAMESPACES, SESSION_SECRET, SSE_CLIENTS, internal, service_ports,
)


class Stack:
    """Every dependency and service, on free ports, in one scratch directory."""

    def __init__(self, procs, scratch):
        self.procs, self.scratch = procs, scratch
        self.ports = {name: free_port() for name in [
            "search", "redis", "exporter", "prometheus", "kube", "oidc", "console",
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
    def start_search(self):
        """A real OpenSearch 2 node (test-support's search-nodes, from the distribution
        scripts/install-servers.sh fetched from Maven), reached through scripts/soak/tcp_relay.py
        on the `search` port: the cluster fault kills and restarts the relay."""
        # search-nodes stops its node when its standard input closes: kept open until the end.
        self.procs.start("search-nodes", [os.path.join(BIN, "search-nodes"), "opensearch2"],
                         keep_stdin=True)
        described = {}

        def printed():
            with open(self.procs.log_path("search-nodes")) as f:
                found = [text for text in f if text.startswith("{")]
            if found:
                described.update(json.loads(found[0])["clusters"][0])
            return bool(found)
        wait_for("search-nodes", 240, printed)
        self.search_node = described
        self.start_search_relay()

    def start_search_relay(self):
        target = urllib.parse.urlsplit(self.search_node["url"]).port
        self.procs.start("search-relay", [sys.executable, os.path.join(ROOT, "scripts", "soak",
                         "tcp_relay.py"), str(self.ports["search"]), str(target)])
        wait_for("search relay", 30, lambda: http_request(self.url("search"), "/_cluster/health")[0] == 200)

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
                                      f"--es.uri={self.url('search')}",
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
  - {{id: main, name: Main, url: "{self.url('search')}"}}
  - id: monitored
    name: Monitored
    url: "{self.url('search')}"
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
search: {{url: "{self.url('search')}"}}
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


def redis_ping(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False
