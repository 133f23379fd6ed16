#!/usr/bin/env python3
"""The container test (`make test`'s "containers" step; alone: scripts/containers/test.py).

1. Starts a Docker engine it owns (engine.py) and makes the base images a registry would give
   from Debian's packages (base_images.py): the distroless-like runtime under the name the
   Dockerfiles use, and stand-ins for the compose stack's third-party servers.
2. Builds the four images from docker/*.Dockerfile, unchanged, with `--build-arg
   BINARIES=prebuilt` and the binaries of target/$CONTAINER_PROFILE (default `fast`) staged by
   stage-prebuilt.sh; prints each image's size and holds the services to a budget.
3. Runs each service image as a container on an internal network with its dependency as a
   container (admin-console -> OpenSearch, authproxy -> Redis and OpenSearch,
   ingress-dash -> kube-test-server) and checks it from outside: non-root uid, read-only root
   file system, HEALTHCHECK healthy, liveness and /_metrics, the dependency reached, the web app
   served, `docker stop` exits 0 within the shutdown time.
4. Brings docker/compose.yaml up with docker/test/compose.test.yaml (third-party images swapped
   for the stand-ins; OpenSearch is the real one, secured) and goes through the front door: an
   OIDC sign-in at authproxy and a search request relayed with the session as the managed user
   authproxy made through the security API; the nginx front door sending a browser without a session to
   sign-in, then admin-console and ingress-dash seeing the signed-in user's role and namespaces;
   a console call relayed by admin-console, Ingresses listed by ingress-dash, Prometheus
   scraping the services.
The engine, its containers and every process it started are gone at the end, pass or fail.
"""
from __future__ import annotations

import base64
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import base_images  # noqa: E402
from engine import DOCKER, Engine, wait_until  # noqa: E402
from http_client import Browser, answers, request  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PROFILE = os.environ.get("CONTAINER_PROFILE", "fast")
BUDGET_MB = 60
SHUTDOWN_SECONDS = 30  # server.shutdown_timeout's default
SERVICES = {  # image -> (port, liveness path)
    "admin-console": (8080, "/api/live"),
    "authproxy": (9000, "/healthz"),
    "ingress-dash": (3000, "/api/live"),
}
# server.internal_port's defaults: /_metrics (and authproxy's check), never on the public port.
INTERNAL_PORTS = {"admin-console": 8081, "authproxy": 9001, "ingress-dash": 3001}
IMAGES = [*SERVICES, "kube-test-server"]
ADMIN_HASH = "$2b$12$Xf0b2HPWABe0ewkeUFkWMOMuBV4QK13M6jKv28WfgCvAV4REcqglK"  # "password"
CACHE_KEY = "local-only-key-0123456789abcdef!"

failures: list[str] = []
started = time.monotonic()


def log(message: str) -> None:
    print(f"[{time.monotonic() - started:6.1f}s] {message}", flush=True)


def check(name: str, ok: bool, detail: str = "") -> bool:
    # A long detail (a command's output) keeps its head and its end, where the error usually is.
    shown = detail if len(detail) <= 3000 else f"{detail[:600]}\n     [...]\n{detail[-2400:]}"
    print(f"{'ok  ' if ok else 'FAIL'} {name}" + ("" if ok else f"\n     {shown}"), flush=True)
    if not ok:
        failures.append(name)
    return ok


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def build_images(engine: Engine) -> None:
    subprocess.run([str(ROOT / "scripts/containers/stage-prebuilt.sh"), PROFILE], check=True)
    for image in IMAGES:
        begun = time.monotonic()
        engine.run("build", "-q", "-f", str(ROOT / f"docker/{image}.Dockerfile"), "--build-arg", "BINARIES=prebuilt",
                   "-t", f"search-platform/{image}:test", str(ROOT))
        size = int(engine.out("image", "inspect", "-f", "{{.Size}}", f"search-platform/{image}:test"))
        log(f"image search-platform/{image}:test built in {time.monotonic() - begun:.1f}s, {size / 1e6:.1f} MB")
        if image in SERVICES:
            check(f"{image}: image size {size / 1e6:.1f} MB within {BUDGET_MB} MB", size <= BUDGET_MB * 1e6)


def inspect(engine: Engine, container: str, template: str) -> str:
    return engine.out("inspect", "-f", template, container)


def container_ip(engine: Engine, container: str) -> str:
    return inspect(engine, container, "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}")


def run_container(engine: Engine, name: str, image: str, *args: str, options: tuple = ()) -> None:
    engine.run("run", "-d", "--name", name, "--network", "sp-test", "--network-alias", name, *options, image, *args)


def healthy(engine: Engine, name: str) -> bool:
    state = json.loads(inspect(engine, name, "{{json .State}}"))
    if not state["Running"]:
        raise RuntimeError(f"{name} exited ({state['ExitCode']}):\n{engine.run('logs', name, check=False).stderr[-2000:]}")
    return state.get("Health", {}).get("Status") == "healthy"


def check_containers(engine: Engine, scratch: Path) -> None:
    engine.run("network", "create", "--internal", "sp-test")
    # The real OpenSearch (docker/test/standins.Dockerfile) without its security plugin here: the
    # images' example configurations carry no cluster credential. The compose step runs it secured.
    run_container(engine, "opensearch", "search-platform-test/opensearch", options=(
        "-e", "discovery.type=single-node", "-e", "DISABLE_SECURITY_PLUGIN=true",
        "-e", "OPENSEARCH_JAVA_OPTS=-Xms512m -Xmx512m"))
    run_container(engine, "redis", "search-platform-test/redis", "redis-server", "--save", "", "--appendonly", "no")
    # kube-test-server has no SIGTERM handler, and PID 1 gets no default signal action: an init
    # process (as compose.yaml's `init: true`) passes TERM on so `docker stop` ends it at once.
    run_container(engine, "kube-test-server", "search-platform/kube-test-server:test", options=("--init",))
    authproxy_config = scratch / "authproxy.yaml"
    authproxy_config.write_text(f"""server: {{host: 0.0.0.0, port: 9000, mode: standalone}}
search: {{url: "http://opensearch:9200", flavor: opensearch}}
cache: {{backend: redis, redis_url: "redis://redis:6379/0", encryption_key: "{CACHE_KEY}"}}
# The cluster here has no security plugin (no user API): managed users are checked in compose.
user_management: {{enabled: false}}
basic_auth:
  users:
    - {{username: admin, password_hash: "{ADMIN_HASH}", email: admin@example.com, groups: [admins]}}
""")
    authproxy_config.chmod(0o644)
    hardened = ("--read-only", "--cap-drop", "ALL", "--security-opt", "no-new-privileges:true")
    run_container(engine, "admin-console", "search-platform/admin-console:test", options=(
        *hardened, "-e", "SEARCH_URL=http://opensearch:9200", "-e", "MONITORED_SEARCH_URL=http://opensearch:9200"))
    run_container(engine, "authproxy", "search-platform/authproxy:test", options=(
        *hardened, "-v", f"{authproxy_config}:/etc/authproxy/config.yaml:ro"))
    run_container(engine, "ingress-dash", "search-platform/ingress-dash:test", options=(
        *hardened, "-e", "KUBE_API_URL=http://kube-test-server:6443"))

    for name, (port, live) in SERVICES.items():
        pid = inspect(engine, name, "{{.State.Pid}}")
        if pid == "0":
            logs = engine.run("logs", name, check=False)
            raise RuntimeError(f"{name} is not running ({inspect(engine, name, '{{.State.Status}} {{.State.ExitCode}}')}):"
                               f"\n{(logs.stdout + logs.stderr)[-3000:]}")
        uids = re.search(r"^Uid:\s+(.*)$", Path(f"/proc/{pid}/status").read_text(), re.M).group(1).split()
        check(f"{name}: runs as uid 65532, not root (real, effective, saved: {' '.join(uids[:3])})",
              set(uids) == {"65532"})
        check(f"{name}: read-only root file system", inspect(engine, name, "{{.HostConfig.ReadonlyRootfs}}") == "true")
    for name in SERVICES:
        try:
            wait_until(f"{name}'s HEALTHCHECK to report healthy", 90, lambda: healthy(engine, name))
            check(f"{name}: HEALTHCHECK healthy", True)
        except (TimeoutError, RuntimeError) as error:
            check(f"{name}: HEALTHCHECK healthy", False, f"{error}\n{inspect(engine, name, '{{json .State.Health}}')}")

    for name, (port, live) in SERVICES.items():
        ip = container_ip(engine, name)
        response = request(ip, port, "GET", live)
        check(f"{name}: liveness {live} answers 200", response.status == 200, response.text)
        metrics = request(ip, INTERNAL_PORTS[name], "GET", "/_metrics")
        check(f"{name}: /_metrics answers Prometheus text on the internal port {INTERNAL_PORTS[name]}",
              metrics.status == 200 and "# TYPE" in metrics.text, f"{metrics.status} {metrics.text[:300]}")
        public = request(ip, port, "GET", "/_metrics")
        check(f"{name}: no /_metrics on the public port", public.status != 200, f"{public.status}")
        if name != "authproxy":
            page = request(ip, port, "GET", "/")
            assets = re.findall(r'(?:src|href)="(/[^"]+\.(?:js|css))"', page.text)
            asset = request(ip, port, "GET", assets[0]) if assets else None
            check(f"{name}: web app served (index.html and {assets[0] if assets else 'no asset'})",
                  page.status == 200 and "text/html" in (page.header("content-type") or "")
                  and asset is not None and asset.status == 200, f"{page.status} {page.text[:300]}")

    search = container_ip(engine, "opensearch")
    try:
        wait_until("OpenSearch to answer _cluster/health", 180,
                   lambda: answers(search, 9200, "/_cluster/health") or (healthy(engine, "opensearch") and False))
    except (TimeoutError, RuntimeError) as error:
        logs = engine.run("logs", "opensearch", check=False)
        raise RuntimeError(f"{error}:\n{(logs.stdout + logs.stderr)[-3000:]}") from error
    console = container_ip(engine, "admin-console")
    # The console relay answers only its own page or a caller that says so (scripts, curl).
    health = request(console, 8080, "GET", "/api/clusters/local/proxy/_cluster/health",
                     {"X-Requested-By": "admin-console"})
    check("admin-console -> opensearch container: relayed _cluster/health",
          health.status == 200 and '"cluster_name"' in health.text, f"{health.status} {health.text[:300]}")
    proxy = container_ip(engine, "authproxy")
    deep = request(proxy, 9000, "GET", "/_health")
    checks = deep.json().get("checks", {}) if deep.status in (200, 503) else {}
    check("authproxy -> redis and opensearch containers: /_health session_store and search_backend ok",
          deep.status == 200 and checks.get("session_store") == "ok" and checks.get("search_backend") == "ok",
          f"{deep.status} {deep.text[:300]}")
    basic = base64.b64encode(b"admin:password").decode()
    relayed = request(proxy, 9000, "GET", "/_cluster/health", {"Authorization": f"Basic {basic}"})
    check("authproxy -> opensearch: a Basic-authenticated search request relayed",
          relayed.status == 200 and '"cluster_name"' in relayed.text, f"{relayed.status} {relayed.text[:300]}")
    dash = container_ip(engine, "ingress-dash")

    def listed() -> bool:
        response = request(dash, 3000, "GET", "/api/ingresses")
        return response.status == 200 and len(response.json().get("items", [])) > 0

    try:
        wait_until("ingress-dash to list kube-test-server's Ingresses", 30, listed)
        check("ingress-dash -> kube-test-server container: Ingresses listed", True)
    except TimeoutError as error:
        check("ingress-dash -> kube-test-server container: Ingresses listed", False, str(error))

    for name in IMAGES:
        begun = time.monotonic()
        engine.run("stop", "-t", str(SHUTDOWN_SECONDS), name, timeout=SHUTDOWN_SECONDS + 30)
        took = time.monotonic() - begun
        code = inspect(engine, name, "{{.State.ExitCode}}")
        # kube-test-server (a test dependency, not a service) ends by the TERM itself: 143.
        expected = {"0", "143"} if name == "kube-test-server" else {"0"}
        check(f"{name}: docker stop exits {code} in {took:.1f}s (shutdown time {SHUTDOWN_SECONDS}s)",
              code in expected and took < SHUTDOWN_SECONDS, f"exit code {code}")
    ids = engine.run("ps", "-aq").stdout.split()
    engine.run("rm", "-f", *ids)
    engine.run("network", "rm", "sp-test")


def check_compose(engine: Engine) -> None:
    ports = {key: str(free_port()) for key in ("CONSOLE_PORT", "AUTHPROXY_PORT", "DASHBOARD_PORT", "PROMETHEUS_PORT", "DEX_PORT",
                                               "FRONT_CONSOLE_PORT", "FRONT_DASHBOARD_PORT", "FRONT_AUTH_PORT")}
    # Debian's docker-compose (1.29); with COMPOSE_DOCKER_CLI_BUILD it builds through Debian's
    # docker client, which has BuildKit built in (needed to skip the stages that build from source).
    env = {**ports, "COMPOSE_DOCKER_CLI_BUILD": "1", "PATH": f"{Path(DOCKER).parent}:{os.environ['PATH']}"}
    compose = ["docker-compose", "-p", "sptest", "-f", "docker/compose.yaml", "-f", "docker/test/compose.test.yaml"]

    def run(*args: str, timeout: float = 900, check_: bool = True) -> subprocess.CompletedProcess:
        completed = subprocess.run([*compose, *args], cwd=ROOT, env={**engine.env, **env}, capture_output=True,
                                   text=True, timeout=timeout)
        if check_ and completed.returncode != 0:
            raise RuntimeError(f"docker-compose {' '.join(args)} failed:\n{completed.stdout[-3000:]}{completed.stderr[-3000:]}")
        return completed

    begun = time.monotonic()
    try:
        run("up", "-d", "--build")
        log(f"compose stack up in {time.monotonic() - begun:.1f}s")
        local = "127.0.0.1"
        for name, key, path in [("admin-console", "CONSOLE_PORT", "/api/live"), ("authproxy", "AUTHPROXY_PORT", "/healthz"),
                                ("ingress-dash", "DASHBOARD_PORT", "/api/live"), ("prometheus", "PROMETHEUS_PORT", "/-/ready")]:
            try:
                wait_until(f"compose {name} on 127.0.0.1:{ports[key]}{path}", 120,
                           lambda: answers(local, int(ports[key]), path))
                check(f"compose: {name} answers on its published port", True)
            except TimeoutError as error:
                check(f"compose: {name} answers on its published port", False, str(error))

        # Sign in as a user would: authproxy -> the provider (Dex's stand-in, reached as dex:5556
        # like the browser of docs/quickstart.md) -> back to authproxy's callback -> relayed.
        browser = Browser({"dex:5556": (local, int(ports["DEX_PORT"])),
                           "localhost:9000": (local, int(ports["AUTHPROXY_PORT"]))})
        landing = browser.get(f"http://localhost:9000/auth/start?login_hint=admin&rd=/_cluster/health")
        session = browser.cookie("_authproxy_session")
        check("compose: OIDC sign-in at authproxy through the provider sets a session",
              session is not None, f"{landing.status} {landing.url} {landing.text[:300]}")
        check("compose: after sign-in the search request is relayed to the cluster with the session",
              landing.status == 200 and '"cluster_name"' in landing.text, f"{landing.status} {landing.text[:300]}")
        # As whom the cluster saw it: the user authproxy made through the security plugin's API.
        who = browser.get("http://localhost:9000/_plugins/_security/authinfo")
        seen = who.json() if who.status == 200 else {}
        check("compose: the cluster saw authproxy's managed user admin@example.com with all_access (authinfo)",
              seen.get("user_name") == "admin@example.com" and "all_access" in seen.get("roles", []),
              f"{who.status} {who.text[:300]}")
        # curl -u ops:password: the local Basic user, as its own managed user (never the
        # plugin's reserved admin).
        basic_ops = "Basic " + base64.b64encode(b"ops:password").decode()
        as_ops = request(local, int(ports["AUTHPROXY_PORT"]), "GET", "/_plugins/_security/authinfo", {"Authorization": basic_ops})
        seen_ops = as_ops.json() if as_ops.status == 200 else {}
        check("compose: a Basic user is relayed as authproxy's managed user ops with all_access (authinfo)",
              seen_ops.get("user_name") == "ops" and "all_access" in seen_ops.get("roles", []),
              f"{as_ops.status} {as_ops.text[:300]}")
        anonymous = request(local, int(ports["AUTHPROXY_PORT"]), "GET", "/_cluster/health")
        check("compose: without a session authproxy does not relay", anonymous.status in (302, 303, 401),
              f"{anonymous.status}")

        # The front door: nginx asks authproxy-front about each request. A browser without a
        # session is sent to sign-in; after it, admin-console and ingress-dash see who it is.
        front_console, front_dash = int(ports["FRONT_CONSOLE_PORT"]), int(ports["FRONT_DASHBOARD_PORT"])
        sign_in = f"http://localhost:9001/auth/start?rd=http://localhost:{front_console}/"

        def redirected() -> bool:
            try:
                response = request(local, front_console, "GET", "/", {"Accept": "text/html", "Host": f"localhost:{front_console}"})
            except OSError:
                return False
            return response.status == 302 and response.header("location") == sign_in

        try:
            wait_until("the front door to send a browser without a session to sign-in", 120, redirected)
            check("compose: front door (nginx + authproxy-front) sends a browser without a session to sign-in", True)
        except TimeoutError as error:
            check("compose: front door (nginx + authproxy-front) sends a browser without a session to sign-in", False, str(error))
        front_map = {"dex:5556": (local, int(ports["DEX_PORT"])), "localhost:9001": (local, int(ports["FRONT_AUTH_PORT"])),
                     f"localhost:{front_console}": (local, front_console), f"localhost:{front_dash}": (local, front_dash)}
        browser = Browser(front_map)
        whoami = browser.get(f"http://localhost:9001/auth/start?login_hint=admin&rd=http://localhost:{front_console}/api/whoami",
                             headers={"Accept": "application/json"})
        me = whoami.json() if whoami.status == 200 else {}
        check("compose: signed in through the front door, admin-console sees admin (group admins) as admin",
              me.get("user") == "admin" and set((me.get("roles") or {}).values()) == {"admin"}, f"{whoami.status} {whoami.text[:300]}")
        browser = Browser(front_map)
        visible = browser.get(f"http://localhost:9001/auth/start?login_hint=shop&rd=http://localhost:{front_dash}/api/namespaces",
                              headers={"Accept": "application/json"})
        check("compose: through the front door, ingress-dash shows shop (group shop-team) only its namespace",
              visible.status == 200 and visible.json().get("namespaces") == ["team-001"], f"{visible.status} {visible.text[:300]}")

        # The services' own published ports: identity headers from there are not believed (only
        # the front door's address is trusted), and the front door has no /_metrics.
        identity = {"X-Auth-Request-User": "compose-test", "X-Auth-Request-Groups": "admins"}
        for name, key, path in [("admin-console", "CONSOLE_PORT", "/api/whoami"), ("ingress-dash", "DASHBOARD_PORT", "/api/namespaces")]:
            claimed = request(local, int(ports[key]), "GET", path, identity)
            check(f"compose: {name} refuses identity headers sent to its published port (401)", claimed.status == 401,
                  f"{claimed.status} {claimed.text[:200]}")
        for front in (front_console, front_dash):
            metrics = request(local, front, "GET", "/_metrics", {"Host": f"localhost:{front}"})
            check(f"compose: the front door :{front} answers 404 for /_metrics", metrics.status == 404, f"{metrics.status}")
        # Console calls through the front door, as curl -u admin:password does.
        console = front_console
        basic = "Basic " + base64.b64encode(b"admin:password").decode()
        headers = {"Content-Type": "application/json", "X-Requested-By": "admin-console", "Authorization": basic,
                   "Host": f"localhost:{front_console}"}
        created = request(local, console, "PUT", "/api/clusters/local/proxy/compose-smoke/_doc/1?refresh=true",
                          headers, b'{"title": "through the compose stack"}')
        found = request(local, console, "POST", "/api/clusters/local/proxy/compose-smoke/_search", headers,
                        b'{"query": {"match": {"title": "compose"}}}')
        hits = found.json().get("hits", {}).get("total", {}) if found.status == 200 else {}
        check("compose: console calls relayed by admin-console to the cluster (index a document, search it)",
              created.status in (200, 201) and (hits.get("value") if isinstance(hits, dict) else hits) == 1,
              f"{created.status} {created.text[:200]} / {found.status} {found.text[:300]}")

        # Saved queries are on the named volume admin-console-data: a new admin-console container
        # (as after `down`/`up` without -v) still has them. nginx is restarted to resolve the new
        # container's address.
        saved = request(local, console, "POST", "/api/saved-queries", headers,
                        b'{"name": "compose-kept", "text": "GET _cluster/health", "cluster": "local"}')
        run("rm", "-s", "-f", "admin-console", timeout=300)
        run("up", "-d", "--no-deps", "admin-console", timeout=300)
        run("restart", "nginx", timeout=300)

        def kept() -> bool:
            try:
                response = request(local, console, "GET", "/api/saved-queries", headers)
            except OSError:
                return False
            return response.status == 200 and "compose-kept" in [q.get("name") for q in response.json().get("queries", [])]

        try:
            wait_until("the recreated admin-console to list the saved query", 120, kept)
            check("compose: a saved query survives a new admin-console container (volume admin-console-data)",
                  saved.status == 201, f"{saved.status} {saved.text[:200]}")
        except TimeoutError as error:
            check("compose: a saved query survives a new admin-console container (volume admin-console-data)", False,
                  f"{error}; saved: {saved.status} {saved.text[:200]}")

        def listed() -> bool:
            response = request(local, front_dash, "GET", "/api/ingresses", {"Authorization": basic, "Host": f"localhost:{front_dash}"})
            return response.status == 200 and len(response.json().get("items", [])) > 0

        try:
            wait_until("ingress-dash to list the sample Ingresses", 60, listed)
            check("compose: ingress-dash lists kube-test-server's Ingresses", True)
        except TimeoutError as error:
            check("compose: ingress-dash lists kube-test-server's Ingresses", False, str(error))

        def scraped() -> bool:
            response = request(local, int(ports["PROMETHEUS_PORT"]), "GET", "/api/v1/targets?state=active")
            targets = response.json()["data"]["activeTargets"] if response.status == 200 else []
            return len(targets) >= 4 and all(target["health"] == "up" for target in targets)

        try:
            wait_until("Prometheus to scrape the exporter and the three services", 60, scraped)
            check("compose: Prometheus scrapes the exporter and the three services' /_metrics", True)
        except TimeoutError as error:
            response = request(local, int(ports["PROMETHEUS_PORT"]), "GET", "/api/v1/targets?state=active")
            check("compose: Prometheus scrapes the exporter and the three services' /_metrics", False,
                  f"{error}: {response.text[:800]}")
    finally:
        if failures:
            print(run("logs", "--no-color", "--tail", "40", check_=False, timeout=60).stdout[-12000:])
        run("down", "-v", "--timeout", str(SHUTDOWN_SECONDS), check_=False, timeout=300)


def main() -> int:
    engine = Engine()

    def interrupted(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGHUP, interrupted)
    try:
        engine.start()
        begun = time.monotonic()
        base_images.import_base_images(engine)
        log(f"base images imported in {time.monotonic() - begun:.1f}s")
        begun = time.monotonic()
        base_images.build_standins(engine)
        log(f"stand-in images built in {time.monotonic() - begun:.1f}s")
        build_images(engine)
        check_containers(engine, engine.scratch)
        log("single-container checks done")
        check_compose(engine)
        log("compose checks done")
    except (Exception, KeyboardInterrupt) as error:  # noqa: BLE001 - a failure; the clean-up follows
        check("container test ran to the end", False, f"{type(error).__name__}: {error}")
    finally:
        engine.stop()
        shutil.rmtree(ROOT / "prebuilt", ignore_errors=True)
        left = engine.leftover_pids()
        check("nothing left running (engine, containerd, shims, containers)", not left, f"pids {left}")
    print(f"containers: {len(failures)} failed, took {time.monotonic() - started:.0f}s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
