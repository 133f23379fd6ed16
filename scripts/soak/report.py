"""bench/soak/results.md from the run's results, with a verdict per goal."""

import json

RSS_GROWTH_LIMIT = 0.05


def errors_of(run):
    errors = run.get("errors", {})
    return sum(v for v in errors.values() if isinstance(v, (int, float)))


def rss_goal(segments, label):
    """(verdict, text): RSS after minute 2 must not grow beyond 5 % of its minute-2 value."""
    points = [(s["minute"], s["rss_kib"].get(label)) for s in segments if s["rss_kib"].get(label)]
    later = [(m, r) for m, r in points if m >= 2.0]
    if len(later) < 2:
        return None, "n/a (needs a run of 3 minutes or more)"
    base, last = later[0][1], later[-1][1]
    peak = max(r for _, r in later)
    growth = (peak - base) / base
    return growth <= RSS_GROWTH_LIMIT, f"{growth * 100:+.1f} % (minute {later[0][0]}: {base} KiB, peak {peak} KiB, end {last} KiB)"


def verdict(ok):
    return "n/a" if ok is None else ("**met**" if ok else "**NOT met**")


def service_goals(name, service):
    goals = []
    errors = sum(errors_of(run) for seg in service["segments"] for run in seg["runs"])
    goals.append(("errors = 0", errors == 0, f"{errors}"))
    labels = list(service["idle_fds"])
    for label in labels:
        ok, text = rss_goal(service["segments"], label)
        goals.append((f"RSS growth after minute 2 ≤ 5 % ({label})", ok, text))
        idle, end = service["idle_fds"][label], service["end_fds"][label]
        ok = None if idle is None or end is None else end <= idle
        goals.append((f"open fds back to idle ({label})", ok,
                      f"idle {idle} (after a 5 s warm-up), end {end} "
                      f"(after {service.get('fds_settled_s')} s without load)"))
    if name == "ingress-dash":
        sse = service.get("sse", {})
        goals.append(("SSE errors = 0", sse.get("errors") == 0,
                      f"{sse.get('errors')} {json.dumps(sse.get('error_kinds', {}))}"))
        watches = service.get("watches_after", {})
        goals.append(("upstream watches 0 after the clients left",
                      watches.get("watchers") == 0 and watches.get("rewatched_after_drop") == 0
                      and watches.get("open_watches") == 0,
                      f"watchers {watches.get('watchers')} after {watches.get('seconds')} s "
                      f"(grace {watches.get('grace_period_s')} s + heartbeat {watches.get('heartbeat_s')} s); "
                      f"after the proxy dropped every watch: {watches.get('rewatched_after_drop')} asked "
                      f"again, {watches.get('open_watches')} open 20 s later"))
    return goals


def all_goals_met(results):
    for name, service in results.get("services", {}).items():
        if any(ok is False for _, ok, _ in service_goals(name, service)):
            return False
    if any(not f.get("goal_met") for f in results.get("faults", [])):
        return False
    if any(not s.get("goal_met") for s in results.get("sigterm", [])):
        return False
    fuzz = results.get("fuzz", {})
    return fuzz.get("skipped") or fuzz.get("exit") == 0


def services_text(results):
    names = results.get("services_run") or ["admin-console", "authproxy", "ingress-dash"]
    return "all three services" if len(names) == 3 else ", ".join(names) + " only"


def memory_table(service):
    """Per segment: RSS beside the allocator's totals (SOAK_MALLOC_PROBE=1) and, for
    ingress-dash, what its /_metrics said: tells live data from memory the allocator keeps."""
    segments = service["segments"]
    probed = any(seg.get("malloc") for seg in segments)
    dash = any(seg.get("metrics") for seg in segments)
    if not probed and not dash:
        return []
    out = []
    for label in service["idle_fds"]:
        cols = ["minute", f"RSS {label} MiB"]
        if probed:
            cols += ["malloc held MiB", "malloc in use MiB", "arenas"]
        if dash:
            cols += ["stream clients", "watchers", "events sent", "resyncs", "churn changes"]
        out.append("| " + " | ".join(cols) + " |")
        out.append("|" + "---|" * len(cols))
        for seg in segments:
            row = [str(seg["minute"]), f"{(seg['rss_kib'].get(label) or 0) / 1024:.1f}"]
            if probed:
                m = (seg.get("malloc") or {}).get(label) or {}
                row += [f"{m['system_kib'] / 1024:.1f}" if m else "?",
                        f"{m['in_use_kib'] / 1024:.1f}" if m else "?", str(m.get("arenas", "?"))]
            if dash:
                metrics = seg.get("metrics") or {}
                row += [f"{metrics.get(name, 0):.0f}" for name in [
                    "ingress_dash_stream_clients", "ingress_dash_watchers",
                    "ingress_dash_stream_events_sent_total", "ingress_dash_stream_resyncs_total"]]
                row.append(str(seg.get("churn_changes", "")))
            out.append("| " + " | ".join(row) + " |")
        out.append("")
    return out


def markdown(results):
    out = []
    w = out.append
    w("# Soak results\n")
    w(f"- Date: {results['started']} → {results.get('finished')} (UTC)")
    m = results.get("machine", {})
    w(f"- Machine: {m.get('cpus')} CPUs ({m.get('cpu')}), {m.get('memory_gib')} GiB, Linux {m.get('kernel')}; "
      "loopback only. Other work was running on the machine (shared with builds).")
    w(f"- Load average (1/5/15 min): before {' '.join(results.get('load_before', []))}, after the steady "
      f"load {' '.join(results.get('load_after_steady', []))}, at the end {' '.join(results.get('load_end', []))}")
    w(f"- Command: `{results['command'].strip()}`; steady load {results['minutes']} min in segments of "
      f"{results['segment_s']} s, {services_text(results)} at once; faults {results['fault_s']} s each; "
      f"{results['sse_clients']} SSE clients, {results['ingresses']} ingresses.")
    binaries = f"from {results['bin_dir']}" if results.get("bin_dir") else "`cargo build --profile fast`"
    w(f"- Binaries: {binaries}; dependencies started by scripts/soak/run.py on free ports "
      "(a real OpenSearch 2 node through a TCP relay, redis-server with AOF, prometheus + prometheus-elasticsearch-exporter, a real "
      "kube-apiserver and etcd behind test-support's fault proxy (kube-cluster), "
      "the OpenID provider of test-support), stopped at the end.")
    w(f"- All goals met: **{'yes' if all_goals_met(results) else 'no'}** (details below)\n")

    for name, service in results.get("services", {}).items():
        w(f"## {name}\n")
        total = sum(run.get("requests", 0) for seg in service["segments"] for run in seg["runs"])
        w(f"Requests served (wrk): {total}\n")
        labels = list(service["idle_fds"])
        header = "| minute | requests | errors | statuses ≥ 400 | p50 ms | p99 ms | " + " | ".join(
            f"RSS {label} MiB" for label in labels) + " |"
        w(header)
        w("|" + "---|" * (6 + len(labels)))
        for seg in service["segments"]:
            for i, run in enumerate(seg["runs"]):
                rss = " | ".join(
                    f"{(seg['rss_kib'].get(label) or 0) / 1024:.1f}" if i == 0 else "" for label in labels)
                tag = f" ({labels[i]})" if len(service["segments"][0]["runs"]) > 1 and i < len(labels) else ""
                w(f"| {seg['minute']}{tag} | {run.get('requests')} | {errors_of(run)} | "
                  f"{json.dumps(run.get('statuses', {}))} | {run.get('p50_ms')} | {run.get('p99_ms')} | {rss} |")
        w("")
        if name == "ingress-dash" and "sse" in service:
            sse = service["sse"]
            w(f"SSE: {sse['clients']} clients, {sse['sessions']} stream sessions (connect, stay 10-50 s, leave), "
              f"{sse['events']} events received, {sse['errors']} errors; churn: {sse['churn_changes']} "
              f"ingress changes ({sse['churn_failures']} failed writes).\n")
        for line in memory_table(service):
            w(line)
        w("| goal | verdict | figure |")
        w("|---|---|---|")
        for goal, ok, text in service_goals(name, service):
            w(f"| {goal} | {verdict(ok)} | {text} |")
        w("")

    w("## Faults under load (long versions)\n")
    for fault in results.get("faults", []):
        w(f"### {fault['name']}\n")
        if "error" in fault:
            w(f"The step failed: `{fault['error']}`\n")
            continue
        w(f"Goal: {fault.get('goal')} — {verdict(fault.get('goal_met'))}\n")
        for key in ["before", "during", "after", "recovery_s"]:
            if key in fault:
                w(f"- {key}: `{json.dumps(fault[key])}`")
        w("")

    w("## SIGTERM under load\n")
    w("| service | exit status | seconds to exit | refused after | wrk | goal (exit 0 within 10 s) |")
    w("|---|---|---|---|---|---|")
    for s in results.get("sigterm", []):
        w(f"| {s['service']} | {s['exit']} | {s['seconds']} | {s['refused_after']} | {s['wrk']} | {verdict(s['goal_met'])} |")
    w("")
    w("## Fuzzing\n")
    fuzz = results.get("fuzz", {})
    if fuzz.get("skipped"):
        w(f"Skipped: {fuzz.get('reason')}\n")
    else:
        w(f"`bash scripts/fuzz.sh` exited {fuzz.get('exit')} after {fuzz.get('seconds')} s "
          f"({verdict(fuzz.get('exit') == 0)}).\n")
        w("```")
        for line in fuzz.get("summary", []):
            w(line)
        w("```")
    w("")
    return "\n".join(out) + "\n"
