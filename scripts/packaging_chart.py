"""The Helm umbrella chart's checks for scripts/check-packaging.py: strict lint and render with
default values and every helm/search-platform/ci/*.yaml, each manifest against the Kubernetes
schemas, Deployments' security and probes, every rendered config.yaml through
`<binary> --validate-config`, secure access modes and the front door, NetworkPolicies, ingress-dash's
RBAC, the pods rolling exactly when their configuration changes, and values the chart refuses."""
from __future__ import annotations

from pathlib import Path

import helm_python as helm
import kubernetes_validate
import yaml

from packaging_common import CHART, check, validate_service_config
from packaging_saved_queries import REFUSED_SAVED_QUERIES, check_saved_queries, check_saved_queries_secret
from packaging_trust import check_chart_trust, trusts_network

KUBERNETES_VERSION = "1.33.0"
# Custom resources have no schema in kubernetes-validate; they are checked by hand below.
CUSTOM_KINDS = {("monitoring.coreos.com/v1", "ServiceMonitor"), ("traefik.io/v1alpha1", "Middleware")}
IDENTITY_HEADERS = ["X-Auth-Request-User", "X-Auth-Request-Email", "X-Auth-Request-Groups"]
PROTECTED_APPS = ("admin-console", "ingress-dash")
# Whom admin-console and ingress-dash believe identity headers from when neither
# global.frontDoor.trustedProxies nor their config names anyone: kubectl port-forward only.
LOOPBACK_PROXIES = ["127.0.0.1/32", "::1/128"]


def check_access(label: str, values: dict | None, documents: list[dict], notes: str) -> None:
    """admin-console and ingress-dash are secure by default, front door or not: access.mode
    trusted_headers (unless the service's config sets a mode: an explicit `open` wins) with
    server.trusted_proxies never empty: the service's own config.server.trusted_proxies, else
    global.frontDoor.trustedProxies, else loopback only (kubectl port-forward). NOTES.txt tells
    the operator which mode each service is in and what a request without identity gets."""
    front_door = ((values or {}).get("global") or {}).get("frontDoor") or {}
    configs = {
        d["metadata"]["labels"].get("app.kubernetes.io/name"): yaml.safe_load(d["data"]["config.yaml"])
        for d in documents
        if d.get("kind") == "ConfigMap"
    }
    for app in PROTECTED_APPS:
        if app not in configs:
            continue
        own = ((values or {}).get(app) or {}).get("config") or {}
        expected_mode = (own.get("access") or {}).get("mode", "trusted_headers")
        expected_proxies = (own.get("server") or {}).get("trusted_proxies") or front_door.get("trustedProxies") or LOOPBACK_PROXIES
        config = configs[app] or {}
        mode = (config.get("access") or {}).get("mode")
        proxies = (config.get("server") or {}).get("trusted_proxies")
        problems = []
        if mode != expected_mode:
            problems.append(f"access.mode is {mode!r}, expected {expected_mode!r}")
        if proxies != expected_proxies:
            problems.append(f"server.trusted_proxies is {proxies!r}, expected {expected_proxies!r}")
        if mode == "trusted_headers" and not proxies:
            problems.append("trusted_headers with no server.trusted_proxies: every request would get 401")
        check(f"{label}: {app} access.mode {expected_mode}, server.trusted_proxies {expected_proxies}", "; ".join(problems) or None)
        line = f"{app}: access.mode {mode}"
        check(f"{label}: NOTES.txt says {line!r}", None if line in notes else "not in NOTES.txt")
    if any((configs.get(app) or {}).get("access", {}).get("mode") == "trusted_headers" for app in PROTECTED_APPS):
        missing = [word for word in ("401", "global.frontDoor", "config.access.mode: open") if word not in notes]
        check(f"{label}: NOTES.txt explains trusted_headers (401, the front door, explicit open)", f"missing {missing}" if missing else None)


def check_front_door(label: str, values: dict | None, documents: list[dict]) -> None:
    """global.frontDoor: admin-console's and ingress-dash's Ingresses behind authproxy (the
    ingress-nginx annotations, or Traefik's router.middlewares naming a rendered ForwardAuth
    Middleware), their configurations in trusted_headers mode trusting exactly the controller's
    CIDR, and authproxy in forward_auth mode with the shared cookie domain. With the front door
    off, no annotation and no Middleware (the configurations are checked by check_access: they
    are in trusted_headers mode either way)."""
    front_door = ((values or {}).get("global") or {}).get("frontDoor") or {}
    enabled = bool(front_door.get("enabled"))
    controller = front_door.get("controller", "nginx")
    by_kind: dict[tuple[str, str], dict] = {}
    for document in documents:
        app = document.get("metadata", {}).get("labels", {}).get("app.kubernetes.io/name")
        by_kind[(document.get("kind"), app)] = document
    middlewares = {d["metadata"]["name"]: d for d in documents if d.get("kind") == "Middleware"}
    services = {d["metadata"]["name"] for d in documents if d.get("kind") == "Service"}
    authproxy_service = next((d["metadata"]["name"] for d in documents if d.get("kind") == "Service"
                              and d["metadata"]["labels"].get("app.kubernetes.io/name") == "authproxy"), None)
    check_url = f"http://{authproxy_service}.search.svc.cluster.local:9001/auth/check"  # authproxy's internal port
    for app in PROTECTED_APPS:
        config = yaml.safe_load(by_kind[("ConfigMap", app)]["data"]["config.yaml"]) if ("ConfigMap", app) in by_kind else {}
        ingress = by_kind.get(("Ingress", app))
        annotations = (ingress or {}).get("metadata", {}).get("annotations") or {}
        auth_keys = sorted(k for k in annotations if k.startswith("nginx.ingress.kubernetes.io/auth-") or k == "traefik.ingress.kubernetes.io/router.middlewares")
        if not enabled:
            check(f"{label}: front door off: {app}'s Ingress has no auth annotations", f"found {auth_keys}" if auth_keys else None)
            mode = (config.get("access") or {}).get("mode")
            own_mode = ((((values or {}).get(app) or {}).get("config") or {}).get("access") or {}).get("mode")
            if own_mode is None:
                check(f"{label}: front door off: {app} still in trusted_headers", None if mode == "trusted_headers" else f"access.mode is {mode!r}")
            continue
        problems = []
        if ingress is None:
            problems.append("no Ingress rendered")
        elif controller == "traefik":
            reference = annotations.get("traefik.ingress.kubernetes.io/router.middlewares", "")
            names = [entry.rsplit("@", 1)[0] for entry in reference.split(",") if entry.endswith("@kubernetescrd")]
            if not any(name.startswith("search-") and name[len("search-"):] in middlewares for name in names):
                problems.append(f"router.middlewares {reference!r} names no rendered Middleware ({sorted(middlewares)})")
            if any(k.startswith("nginx.ingress") for k in auth_keys):
                problems.append(f"ingress-nginx annotations with Traefik: {auth_keys}")
        else:
            expected = {
                "nginx.ingress.kubernetes.io/auth-url": check_url,
                "nginx.ingress.kubernetes.io/auth-signin": front_door["signInUrl"].rstrip("/") + "/auth/start?rd=$scheme://$host$escaped_request_uri",
                "nginx.ingress.kubernetes.io/auth-response-headers": ",".join(IDENTITY_HEADERS),
            }
            problems += [f"{key}: {annotations.get(key)!r}, expected {value!r}" for key, value in expected.items() if annotations.get(key) != value]
            if authproxy_service not in services:
                problems.append(f"auth-url names no rendered Service ({authproxy_service})")
        if (config.get("access") or {}).get("mode") != "trusted_headers":
            problems.append(f"access.mode is {(config.get('access') or {}).get('mode')!r}, not trusted_headers")
        if (config.get("server") or {}).get("trusted_proxies") != front_door.get("trustedProxies"):
            problems.append(f"server.trusted_proxies {(config.get('server') or {}).get('trusted_proxies')} is not the controller's {front_door.get('trustedProxies')}")
        check(f"{label}: front door ({controller}): {app} behind authproxy, trusted_headers", "; ".join(problems) or None)
    if not enabled:
        check(f"{label}: front door off: no Middleware", f"found {sorted(middlewares)}" if middlewares else None)
        return
    if controller == "traefik":
        problems = []
        if len(middlewares) != 1:
            problems.append(f"{len(middlewares)} Middlewares rendered")
        for name, middleware in middlewares.items():
            forward_auth = middleware.get("spec", {}).get("forwardAuth") or {}
            if forward_auth.get("address") != check_url:
                problems.append(f"{name}: address {forward_auth.get('address')!r}, expected {check_url!r}")
            if forward_auth.get("authResponseHeaders") != IDENTITY_HEADERS:
                problems.append(f"{name}: authResponseHeaders {forward_auth.get('authResponseHeaders')}")
            if forward_auth.get("trustForwardHeader") is not False:
                problems.append(f"{name}: trustForwardHeader is not false")
            # Client copies of the nginx contract's headers (X-Original-URL) must not reach the check.
            if forward_auth.get("authRequestHeaders") != ["Authorization", "Cookie", "Accept"]:
                problems.append(f"{name}: authRequestHeaders {forward_auth.get('authRequestHeaders')}")
        check(f"{label}: front door (traefik): the ForwardAuth Middleware", "; ".join(problems) or None)
    elif middlewares:
        check(f"{label}: front door (nginx): no Traefik Middleware", f"found {sorted(middlewares)}")
    authproxy = yaml.safe_load(by_kind[("ConfigMap", "authproxy")]["data"]["config.yaml"])
    problems = []
    if authproxy["server"].get("mode", "forward_auth") != "forward_auth":
        problems.append(f"server.mode {authproxy['server'].get('mode')}")
    if authproxy["server"].get("front_proxy") != controller:
        problems.append(f"server.front_proxy {authproxy['server'].get('front_proxy')!r}, expected {controller!r}")
    if authproxy["server"].get("trusted_proxies") != front_door.get("trustedProxies"):
        problems.append(f"server.trusted_proxies {authproxy['server'].get('trusted_proxies')}")
    if (authproxy.get("session") or {}).get("cookie_domain") != front_door.get("cookieDomain"):
        problems.append(f"session.cookie_domain {(authproxy.get('session') or {}).get('cookie_domain')!r}")
    check(f"{label}: front door: authproxy in forward_auth for the controller, shared cookie domain", "; ".join(problems) or None)


def deployment_problems(document: dict) -> list[str]:
    problems = []
    pod = document["spec"]["template"]["spec"]
    if not pod.get("securityContext", {}).get("runAsNonRoot"):
        problems.append("pod securityContext.runAsNonRoot is not true")
    for container in pod["containers"]:
        context = container.get("securityContext", {})
        if context.get("readOnlyRootFilesystem") is not True:
            problems.append(f"{container['name']}: readOnlyRootFilesystem is not true")
        if context.get("allowPrivilegeEscalation") is not False:
            problems.append(f"{container['name']}: allowPrivilegeEscalation is not false")
        for probe in ("livenessProbe", "readinessProbe"):
            if "httpGet" not in container.get(probe, {}):
                problems.append(f"{container['name']}: no {probe}")
        if "limits" not in container.get("resources", {}):
            problems.append(f"{container['name']}: no resource limits")
    return problems


EXPECTED_PROBES = {
    "admin-console": ("/api/live", "/api/live"),
    "authproxy": ("/healthz", "/healthz"),
    "ingress-dash": ("/api/live", "/api/health"),
}


def secret_env(documents: list[dict]) -> dict[str, dict[str, str]]:
    """Environment each service gets from the chart's Secrets, by app name."""
    env: dict[str, dict[str, str]] = {}
    for document in documents:
        if document.get("kind") == "Secret":
            app = document["metadata"]["labels"]["app.kubernetes.io/name"]
            env.setdefault(app, {}).update(document.get("stringData") or {})
    return env


def volume_mounts(documents: list[dict]) -> dict[str, list[str]]:
    """Mount paths of each service's extra volumes (not its own config and /tmp), by app name."""
    mounts: dict[str, list[str]] = {}
    for document in documents:
        if document.get("kind") == "Deployment":
            app = document["metadata"]["labels"]["app.kubernetes.io/name"]
            container = document["spec"]["template"]["spec"]["containers"][0]
            mounts[app] = [
                mount["mountPath"]
                for mount in container.get("volumeMounts", [])
                if mount["name"] not in ("config", "tmp")
            ]
    return mounts


def check_chart(values_file: Path | None) -> None:
    label = f"helm {values_file.name if values_file else 'default values'}"
    values = yaml.safe_load(values_file.read_text()) if values_file else None
    report = helm.lint(str(CHART), values, strict=True, with_subcharts=True, kube_version=f"v{KUBERNETES_VERSION}")
    errors = [m for m in report.get("messages", []) if m["severity"] >= 2] + [{"error": e} for e in report.get("errors", [])]
    check(f"{label}: helm lint --strict", "; ".join(str(m.get("path", "")) + " " + m["error"] for m in errors) or None)
    try:
        rendered = helm.Chart.load(str(CHART)).render(values, name="sp", namespace="search", is_install=True)
    except helm.HelmError as error:
        check(f"{label}: helm template", str(error))
        return
    check(f"{label}: helm template", None)
    notes = next((text for path, text in rendered.items() if path.endswith("NOTES.txt")), "")
    documents = [
        doc
        for path, text in rendered.items()
        if path.endswith((".yaml", ".yml"))
        for doc in yaml.safe_load_all(text)
        if doc
    ]
    env_by_app = secret_env(documents)
    mounts_by_app = volume_mounts(documents)
    for document in documents:
        kind, name = document.get("kind"), document.get("metadata", {}).get("name")
        if kind == "Middleware":
            continue  # checked in check_front_door
        if (document.get("apiVersion"), kind) in CUSTOM_KINDS:
            endpoints = document.get("spec", {}).get("endpoints", [])
            ok = bool(endpoints) and all(e.get("path") == "/_metrics" and e.get("port") for e in endpoints)
            check(f"{label}: {kind} {name} scrapes /_metrics", None if ok else str(document.get("spec")))
            continue
        try:
            kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)
            problem = None
        except Exception as error:  # the library raises several error types
            problem = str(error).splitlines()[0]
        check(f"{label}: {kind} {name} matches the Kubernetes {KUBERNETES_VERSION} schema", problem)
        if kind == "Deployment":
            check(f"{label}: Deployment {name} is restricted and probed", "; ".join(deployment_problems(document)) or None)
            app = document["metadata"]["labels"]["app.kubernetes.io/name"]
            container = document["spec"]["template"]["spec"]["containers"][0]
            probes = (container["livenessProbe"]["httpGet"]["path"], container["readinessProbe"]["httpGet"]["path"])
            check(f"{label}: {app} probes {probes}", None if probes == EXPECTED_PROBES[app] else f"expected {EXPECTED_PROBES[app]}")
        if kind == "ConfigMap":
            app = document["metadata"]["labels"]["app.kubernetes.io/name"]
            config = document["data"]["config.yaml"]
            validate_service_config(app, config, env_by_app.get(app, {}), label, mounts_by_app.get(app, []))
    check_access(label, values, documents, notes)
    check_front_door(label, values, documents)
    check_ingress_dash_rbac(label, values, documents)
    check_network_policies(label, values, documents)
    check_chart_trust(check, label, documents)
    check_saved_queries(label, chart_values("admin-console", values), documents, notes)


def chart_values(app: str, values: dict | None) -> dict:
    """The subchart's values.yaml with the release's values for it merged over it the way Helm
    does (maps merge, a null removes the key)."""
    def merge(base: dict, over: dict) -> dict:
        merged = dict(base)
        for key, value in over.items():
            if value is None:
                merged.pop(key, None)
            elif isinstance(value, dict) and isinstance(merged.get(key), dict):
                merged[key] = merge(merged[key], value)
            else:
                merged[key] = value
        return merged

    defaults = yaml.safe_load((CHART / "charts" / app / "values.yaml").read_text())
    return merge(defaults, (values or {}).get(app) or {})


def check_network_policies(label: str, values: dict | None, documents: list[dict]) -> None:
    """networkPolicy (unset: on exactly when the service trusts network peers for identity,
    packaging_trust.trusts_network): none rendered when off; when on, exactly one per service
    selecting its pods, admitting only the ingress controller on the http port (authproxy: and
    the internal port, the check) and Prometheus on the internal port (plus extraIngress), and
    letting out only DNS, each egress group with ports (to its peers, or anywhere when it names
    none) and extraEgress, nothing else."""
    policies: dict[str, list[dict]] = {}
    for document in documents:
        if document.get("kind") == "NetworkPolicy":
            app = document["metadata"]["labels"].get("app.kubernetes.io/name")
            policies.setdefault(app, []).append(document)
    deployments = {d["metadata"]["labels"]["app.kubernetes.io/name"]: d for d in documents if d.get("kind") == "Deployment"}
    configs = {d["metadata"]["labels"]["app.kubernetes.io/name"]: yaml.safe_load(d["data"]["config.yaml"])
               for d in documents if d.get("kind") == "ConfigMap"}
    for app, deployment in deployments.items():
        policy_values = chart_values(app, values).get("networkPolicy") or {}
        found = policies.get(app, [])
        enabled = policy_values.get("enabled")
        if not (enabled or (enabled is None and trusts_network(app, configs.get(app) or {}))):
            check(f"{label}: {app} networkPolicy off: no NetworkPolicy", f"{len(found)} rendered" if found else None)
            continue
        if len(found) != 1:
            check(f"{label}: {app} networkPolicy on: one NetworkPolicy", f"{len(found)} rendered")
            continue
        spec = found[0]["spec"]
        controller_ports = ["http", "internal"] if app == "authproxy" else ["http"]
        sources = [(policy_values.get(name), ports) for name, ports in (("ingressController", controller_ports), ("prometheus", ["internal"]))]
        ingress = [{"from": [peer], "ports": [{"port": port, "protocol": "TCP"} for port in ports]} for peer, ports in sources if peer]
        ingress += policy_values.get("extraIngress") or []
        egress = [{"ports": [{"port": 53, "protocol": "UDP"}, {"port": 53, "protocol": "TCP"}]}] if policy_values.get("dns") else []
        for name in sorted(policy_values.get("egress") or {}):
            group = policy_values["egress"][name]
            if group and group.get("ports"):
                egress.append({"ports": group["ports"], **({"to": group["to"]} if group.get("to") else {})})
        egress += policy_values.get("extraEgress") or []
        problems = []
        selector = deployment["spec"]["selector"]["matchLabels"]
        if spec.get("podSelector") != {"matchLabels": selector}:
            problems.append(f"podSelector {spec.get('podSelector')} is not the pods' {selector}")
        if spec.get("policyTypes") != ["Ingress", "Egress"]:
            problems.append(f"policyTypes {spec.get('policyTypes')}")
        if (spec.get("ingress") or []) != ingress:
            problems.append(f"ingress {spec.get('ingress')}, expected {ingress}")
        if (spec.get("egress") or []) != egress:
            problems.append(f"egress {spec.get('egress')}, expected {egress}")
        ports = [port.get("name") for port in deployment["spec"]["template"]["spec"]["containers"][0].get("ports", [])]
        if not {"http", "internal"} <= set(ports):
            problems.append(f"the container lacks a port named http or internal ({ports})")
        if not egress or not ingress:
            problems.append("no ingress or no egress rule: the service could not work")
        check(f"{label}: {app} networkPolicy on: the controller on http, Prometheus on internal, egress to DNS and its groups only", "; ".join(problems) or None)


# Values that change the services' configurations one after the other (each step from the one
# before): the pods must roll exactly when their rendered config.yaml changes.
CHECKSUM_STEPS = [
    ("default values", None),
    ("admin-console's ingress on (allowed_hosts from its hosts)", {"admin-console": {"ingress": {"enabled": True}}}),
    ("admin-console's ingress host changed", {"admin-console": {"ingress": {"enabled": True, "hosts": [
        {"host": "search-console.example.org", "paths": [{"path": "/", "pathType": "Prefix"}]}]}}}),
    ("admin-console hostCheck.extraHosts changed", {"admin-console": {"ingress": {"enabled": True, "hosts": [
        {"host": "search-console.example.org", "paths": [{"path": "/", "pathType": "Prefix"}]}]},
        "hostCheck": {"extraHosts": ["localhost"]}}}),
    ("global.frontDoor on", {"admin-console": {"ingress": {"enabled": True, "hosts": [
        {"host": "search-console.example.org", "paths": [{"path": "/", "pathType": "Prefix"}]}]},
        "hostCheck": {"extraHosts": ["localhost"]}},
        "global": {"frontDoor": {"enabled": True, "signInUrl": "https://auth.example.com",
                                  "cookieDomain": ".example.com", "trustedProxies": ["10.42.0.0/16"]}}}),
    ("each service's log level", {"admin-console": {"config": {"observability": {"log_level": "debug"}}},
                                  "authproxy": {"config": {"observability": {"log_level": "debug"}}},
                                  "ingress-dash": {"config": {"observability": {"log_level": "debug"}}}}),
    ("ingress-dash's watched namespaces", {"admin-console": {"config": {"observability": {"log_level": "debug"}}},
                                           "authproxy": {"config": {"observability": {"log_level": "debug"}}},
                                           "ingress-dash": {"config": {"observability": {"log_level": "debug"}},
                                                            "watchNamespaces": ["shop"]}}),
    ("an image tag only (no configuration change)", {"admin-console": {"config": {"observability": {"log_level": "debug"}}},
                                                     "authproxy": {"config": {"observability": {"log_level": "debug"}}},
                                                     "ingress-dash": {"config": {"observability": {"log_level": "debug"}},
                                                                      "watchNamespaces": ["shop"], "image": {"tag": "9.9.9"}}}),
]


def rendered_configs(values: dict | None) -> dict[str, tuple[str, str]]:
    """Per service: its ConfigMap's config.yaml and its pods' checksum/config annotation."""
    rendered = helm.Chart.load(str(CHART)).render(values, name="sp", namespace="search", is_install=True)
    documents = [doc for path, text in rendered.items() if path.endswith(".yaml") for doc in yaml.safe_load_all(text) if doc]
    configs = {d["metadata"]["labels"]["app.kubernetes.io/name"]: d["data"]["config.yaml"] for d in documents if d.get("kind") == "ConfigMap"}
    return {
        app: (configs.get(app), d["spec"]["template"]["metadata"]["annotations"].get("checksum/config"))
        for d in documents
        if d.get("kind") == "Deployment"
        for app in [d["metadata"]["labels"]["app.kubernetes.io/name"]]
    }


def check_config_checksums() -> None:
    """checksum/config covers every value that reaches a service's config.yaml (admin-console's
    allowed_hosts, filled from its ingress hosts and hostCheck, included) and nothing else: a
    configuration change rolls that service's pods, and only that service's."""
    previous = None
    for step, values in CHECKSUM_STEPS:
        current = rendered_configs(values)
        if previous is not None:
            for app, (config, checksum) in current.items():
                before_config, before_checksum = previous[app]
                changed, rolled = config != before_config, checksum != before_checksum
                problem = None if changed == rolled else (
                    "config.yaml changed but checksum/config did not: the pods would keep the old configuration"
                    if changed else "checksum/config changed with config.yaml unchanged: a needless restart")
                check(f"helm checksum/config: {step}: {app} {'rolls' if changed else 'stays'}", problem)
        previous = current


def check_ingress_dash_rbac(label: str, values: dict | None, documents: list[dict]) -> None:
    """ingress-dash's (Cluster)Roles grant get/list/watch on what its config reads beside
    ingresses (backends, certificates.read_secrets, certificates.cert_manager, gateway_api), and
    secrets only when read_secrets is on."""
    config = ((values or {}).get("ingress-dash") or {}).get("config") or {}
    wanted = {("networking.k8s.io", "ingresses")}
    if (config.get("backends") or {}).get("enabled", True):
        wanted |= {("", "services"), ("discovery.k8s.io", "endpointslices")}
    certificates = config.get("certificates") or {}
    if certificates.get("read_secrets", False):
        wanted.add(("", "secrets"))
    if certificates.get("cert_manager", True):
        wanted.add(("cert-manager.io", "certificates"))
    if (config.get("gateway_api") or {}).get("enabled", True):
        wanted.add(("gateway.networking.k8s.io", "httproutes"))
    roles = [
        d for d in documents
        if d.get("kind") in ("ClusterRole", "Role")
        and d.get("metadata", {}).get("labels", {}).get("app.kubernetes.io/name") == "ingress-dash"
    ]
    check(f"{label}: ingress-dash has its RBAC", None if roles else "no ClusterRole or Role rendered")
    for role in roles:
        readable = {
            (group, resource)
            for rule in role.get("rules", [])
            if {"get", "list", "watch"} <= set(rule.get("verbs", []))
            for group in rule.get("apiGroups", [])
            for resource in rule.get("resources", [])
        }
        name = f"{role['kind']} {role['metadata'].get('namespace', '')}/{role['metadata']['name']}"
        missing = sorted(wanted - readable)
        extra = ("", "secrets") in readable and ("", "secrets") not in wanted
        problem = f"missing get/list/watch on {missing}" if missing else ("grants secrets without certificates.read_secrets" if extra else None)
        check(f"{label}: ingress-dash {name} grants what its config reads", problem)


# Values the chart refuses, and words its message must contain.
REFUSED_VALUES = [
    (
        "networkPolicy.enabled: false while admin-console trusts a pod CIDR",
        {"admin-console": {"networkPolicy": {"enabled": False}, "config": {"server": {"trusted_proxies": ["10.42.0.0/16"]}}}},
        ["admin-console", "networkPolicy.enabled", "10.42.0.0/16"],
    ),
    (
        "the front door without trustedProxies",
        {"global": {"frontDoor": {"enabled": True, "signInUrl": "https://auth.example.com"}}},
        ["trustedProxies"],
    ),
    (
        "admin-console in trusted_headers with server.trusted_proxies: []",
        {"admin-console": {"config": {"server": {"trusted_proxies": []}}}},
        ["admin-console", "server.trusted_proxies", "401", "access.mode: open"],
    ),
    (
        "ingress-dash in trusted_headers with server.trusted_proxies: []",
        {"ingress-dash": {"config": {"server": {"trusted_proxies": []}, "access": {"mode": "trusted_headers"}}}},
        ["ingress-dash", "server.trusted_proxies", "401", "access.mode: open"],
    ),
    (
        "global.frontDoor.trustedProxies with a host name",
        {"global": {"frontDoor": {"trustedProxies": ["ingress-nginx.example.com"]}}},
        ["trustedProxies"],
    ),
    *REFUSED_SAVED_QUERIES,
]


def check_chart_refusals() -> None:
    """Values that would leave a service refusing everyone, or trusting nobody, fail at render
    time with a message naming the value and the way out."""
    for name, values, words in REFUSED_VALUES:
        try:
            helm.Chart.load(str(CHART)).render(values, name="sp", namespace="search", is_install=True)
        except helm.HelmError as error:
            missing = [word for word in words if word not in str(error)]
            check(f"helm refuses {name}", f"message lacks {missing}: {error}" if missing else None)
        else:
            check(f"helm refuses {name}", "rendered without an error")
    check_saved_queries_secret(lambda values: helm.Chart.load(str(CHART)).render(values, name="sp", namespace="search", is_install=True))
