"""The soak's load: signing in, wrk over a request mix, Ingress churn and SSE clients, and
ingress-dash's metrics read back."""

import asyncio
import json
import os
import random
import re
import subprocess
import tempfile
import threading
import time
import urllib.parse

from common import http_request
from settings import DEMO_BASIC, INGRESSES, LUA, NAMESPACES


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
