"""Who the packaged services trust, and where their internal listeners are reachable, for
scripts/check-packaging.py:

- compose: the front door (nginx) has a fixed address on the compose network, and every service
  that believes identity headers or answers the forward_auth check trusts exactly that address
  (not the private ranges: any container, or a LAN host through a published port, would name
  any identity); no internal listener (`server.internal_port`: metrics, the check) is published;
  Prometheus scrapes and nginx asks the internal listeners; nginx answers 404 for /_metrics.
- Helm: a service that believes identity headers (or answers the check) from anything but
  loopback always has its NetworkPolicy; the ServiceMonitor scrapes the `internal` port, which
  no Ingress names."""
from __future__ import annotations

import ipaddress
import re
from pathlib import Path

import yaml

# `server.internal_port`'s default per binary (service-kit's server_settings!).
INTERNAL_PORTS = {"admin-console": 8081, "authproxy": 9001, "ingress-dash": 3001}
LOOPBACK = {"127.0.0.1", "::1"}


def beyond_loopback(proxies: list | None) -> bool:
    """True when a trusted-proxy list names any address but loopback."""
    for entry in proxies or []:
        network = ipaddress.ip_network(str(entry), strict=False)
        if not (network.num_addresses == 1 and str(network.network_address) in LOOPBACK):
            return True
    return False


def trusts_network(app: str, config: dict) -> bool:
    """The service believes identity headers (or answers the check) from a network peer."""
    server = config.get("server") or {}
    believes = (config.get("access") or {}).get("mode") == "trusted_headers" or (
        app == "authproxy" and server.get("mode", "forward_auth") == "forward_auth")
    return believes and beyond_loopback(server.get("trusted_proxies"))


def check_compose_trust(check, compose: dict, config_dir: Path, binaries: dict[str, str]) -> None:
    """`binaries`: compose service name -> the binary it runs."""
    nginx = compose["services"].get("nginx") or {}
    address = ((nginx.get("networks") or {}).get("default") or {}).get("ipv4_address")
    check("compose: the front door (nginx) has a fixed address on the compose network",
          None if address else "nginx has no networks.default.ipv4_address")
    # Docker hands the other containers addresses from the pool in order (.2, .3, ...): a fixed
    # address inside it is taken by whichever container starts first ("Address already in use").
    pools = [c.get("ip_range") for c in
             (((compose.get("networks") or {}).get("default") or {}).get("ipam") or {}).get("config") or []]
    inside = [pool for pool in pools if pool and address
              and ipaddress.ip_address(address) in ipaddress.ip_network(pool)]
    check("compose: the front door's address is outside the pool Docker assigns from (ip_range)",
          None if address and any(pools) and not inside
          else f"ip_range {pools} (the address {address} must lie outside it)")
    for name, binary in binaries.items():
        service = compose["services"][name]
        mounted = next(v.split(":")[0] for v in service.get("volumes", []) if v.split(":")[1].endswith(".yaml"))
        config = yaml.safe_load((config_dir.parent / mounted).read_text())
        server = config.get("server") or {}
        if server.get("trusted_proxies") is not None or (config.get("access") or {}).get("mode") == "trusted_headers":
            proxies = [str(p).removesuffix("/32") for p in server.get("trusted_proxies") or []]
            check(f"compose {name}: trusts exactly the front door ({address})",
                  None if address and proxies == [address] else f"server.trusted_proxies is {proxies}")
        internal = server.get("internal_port", INTERNAL_PORTS[binary])
        published = [str(p).rsplit(":", 1)[-1] for p in service.get("ports", [])]
        check(f"compose {name}: its internal listener (:{internal}) is not published",
              f"published {published}" if str(internal) in published else None)
    prometheus = yaml.safe_load((config_dir / "prometheus.yml").read_text())
    targets = {t for job in prometheus["scrape_configs"] if job.get("metrics_path") == "/_metrics"
               for group in job["static_configs"] for t in group["targets"]}
    wanted = {f"{name}:{INTERNAL_PORTS[b]}" for name, b in binaries.items() if name != "authproxy-front"}
    check("compose: Prometheus scrapes the services' internal listeners",
          None if targets == wanted else f"targets {sorted(targets)}, expected {sorted(wanted)}")
    locations = (config_dir / "authproxy-locations.conf").read_text()
    check("compose nginx: the check is asked on authproxy-front's internal listener",
          None if f"http://authproxy-front:{INTERNAL_PORTS['authproxy']}/" in locations else "proxy_pass elsewhere")
    check("compose nginx: /_metrics answers 404 at the front door",
          None if re.search(r"location = /_metrics \{\s*return 404;", locations) else "no location = /_metrics returning 404")


def check_chart_trust(check, label: str, documents: list[dict]) -> None:
    by_kind: dict[str, dict[str, list[dict]]] = {}
    for document in documents:
        app = (document.get("metadata", {}).get("labels") or {}).get("app.kubernetes.io/name")
        by_kind.setdefault(document.get("kind"), {}).setdefault(app, []).append(document)
    for app, (configmap, *_) in by_kind.get("ConfigMap", {}).items():
        config = yaml.safe_load(configmap["data"]["config.yaml"])
        if trusts_network(app, config):
            policies = by_kind.get("NetworkPolicy", {}).get(app, [])
            check(f"{label}: {app} trusts {config['server']['trusted_proxies']}: its NetworkPolicy is rendered",
                  None if policies else "no NetworkPolicy: any pod in those ranges may claim any identity")
        service = by_kind.get("Service", {}).get(app, [{}])[0]
        ports = {p.get("name"): p for p in (service.get("spec") or {}).get("ports", [])}
        check(f"{label}: {app} Service has the internal port",
              None if "internal" in ports else f"ports {sorted(ports)}")
        for ingress in by_kind.get("Ingress", {}).get(app, []):
            backends = [path["backend"]["service"]["port"] for rule in ingress["spec"].get("rules", [])
                        for path in rule["http"]["paths"]]
            internal = (ports.get("internal") or {}).get("port")
            check(f"{label}: {app} Ingress never names the internal port",
                  None if all(b.get("name") != "internal" and (internal is None or b.get("number") != internal)
                              for b in backends) else str(backends))
        for monitor in by_kind.get("ServiceMonitor", {}).get(app, []):
            endpoints = monitor["spec"].get("endpoints", [])
            check(f"{label}: {app} ServiceMonitor scrapes the internal port",
                  None if endpoints and all(e.get("port") == "internal" for e in endpoints) else str(endpoints))
