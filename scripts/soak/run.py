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

import datetime
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import faults  # noqa: E402
import report  # noqa: E402
from common import ROOT, Procs, http_request, log, rss_kib, open_fds, wait_for  # noqa: E402
from settings import (  # noqa: E402
    ALL_SERVICES, BIN, FAULT_SECONDS, FUZZ_SECONDS, INGRESSES, MALLOC_PROBE, MINUTES, NAMESPACES, PROFILE, SEGMENT, SERVICES, SSE_CLIENTS,
)
from stack import Stack  # noqa: E402
from load import (  # noqa: E402
    Churn, SseClients, authproxy_mix, console_mix, dash_metrics, dash_mix, sign_in, wrk,
)


def build():
    if os.environ.get("SOAK_SKIP_BUILD") == "1" or os.environ.get("SOAK_BIN_DIR"):
        log(f"build: skipped; binaries from {BIN}")
        return
    # ingress-dash's Kubernetes API: test-support's kube-cluster (a real kube-apiserver and
    # etcd behind the fault proxy); kube-test-server prints the sample written into it.
    # The search side: test-support's search-nodes (a real OpenSearch node).
    packages = SERVICES + (["kube-test-server"] if "ingress-dash" in SERVICES else []) + ["test-support"]
    log(f"build: cargo build --profile {PROFILE} ({', '.join(packages)})")
    subprocess.run(
        ["cargo", "build", "--profile", PROFILE, "--bins"]
        + [arg for package in packages for arg in ("-p", package)],
        cwd=ROOT, check=True)


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
            # OpenSearch 2 from Maven and the unprivileged user it runs as (skipped when there).
            subprocess.run([os.path.join(ROOT, "scripts", "install-servers.sh"), "--make-run"],
                           cwd=ROOT, check=True)
            stack.start_search()
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
