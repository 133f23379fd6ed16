"""admin-console's saved queries in the Helm chart, for scripts/packaging_chart.py: the rendered
config.yaml's saved_queries, the data volume at CONSOLE_DATA_DIR (an emptyDir, or the
PersistentVolumeClaim with savedQueries.persistence), the Redis URL from an existing Secret, and
what NOTES.txt tells the operator."""
from __future__ import annotations

from collections.abc import Callable

import yaml

from packaging_common import CONSOLE_DATA_DIR, check

APP = "admin-console"
DATA_FILE = f"{CONSOLE_DATA_DIR}/saved-queries.redb"


def by_app(documents: list[dict], kind: str) -> dict | None:
    return next((d for d in documents if d.get("kind") == kind
                 and d["metadata"]["labels"].get("app.kubernetes.io/name") == APP), None)


def saved_queries_problems(settings: dict, documents: list[dict], notes: str) -> list[str]:
    """What is wrong with the rendered objects for the chart values `settings` (admin-console's
    values.yaml with the release's values over it)."""
    configmap, deployment = by_app(documents, "ConfigMap"), by_app(documents, "Deployment")
    if configmap is None or deployment is None:
        return []
    saved = (settings.get("savedQueries") or {})
    persistence = saved.get("persistence") or {}
    section = (yaml.safe_load(configmap["data"]["config.yaml"]) or {}).get("saved_queries") or {}
    pod = deployment["spec"]["template"]["spec"]
    mounts = {m["mountPath"]: m["name"] for m in pod["containers"][0].get("volumeMounts", [])}
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    volume = volumes.get(mounts.get(CONSOLE_DATA_DIR, ""))
    strategy = (deployment["spec"].get("strategy") or {}).get("type")
    claims = [d for d in documents if d.get("kind") == "PersistentVolumeClaim"]
    problems = []
    if section.get("store") != saved.get("store"):
        problems.append(f"config saved_queries.store {section.get('store')!r}, values {saved.get('store')!r}")
    if saved.get("store") == "redis":
        if not (section.get("redis") or {}).get("url"):
            problems.append("store redis without saved_queries.redis.url")
        if volume is not None or claims:
            problems.append("a data volume or claim with store redis")
        if "in Redis" not in notes:
            problems.append("NOTES.txt does not say they are in Redis")
        return problems
    if section.get("path") != DATA_FILE:
        problems.append(f"saved_queries.path is {section.get('path')!r}, expected {DATA_FILE}")
    if volume is None:
        problems.append(f"nothing mounted at {CONSOLE_DATA_DIR}")
    elif not persistence.get("enabled"):
        if "emptyDir" not in volume:
            problems.append(f"persistence off but the volume is {volume}")
        if claims or strategy == "Recreate":
            problems.append("persistence off but a claim or strategy Recreate")
        if "LOST" not in notes or "savedQueries.persistence.enabled" not in notes:
            problems.append("NOTES.txt does not say they are lost with the pod and how to keep them")
    else:
        claim_name = (volume.get("persistentVolumeClaim") or {}).get("claimName")
        if claim_name is None:
            problems.append(f"persistence on but the volume is {volume}")
        if strategy != "Recreate":
            problems.append(f"persistence on but strategy {strategy!r} (two pods would open the file)")
        if persistence.get("existingClaim"):
            if claim_name != persistence["existingClaim"] or claims:
                problems.append(f"existingClaim {persistence['existingClaim']!r}: claim {claim_name!r}, {len(claims)} rendered")
        else:
            claim = next((c for c in claims if c["metadata"]["name"] == claim_name), None)
            if claim is None:
                problems.append(f"no PersistentVolumeClaim {claim_name!r} rendered")
            else:
                spec = claim["spec"]
                wanted = {"accessModes": persistence.get("accessModes"),
                          "storage": str(persistence.get("size")),
                          "storageClassName": persistence.get("storageClass") or None}
                found = {"accessModes": spec.get("accessModes"),
                         "storage": spec["resources"]["requests"]["storage"],
                         "storageClassName": spec.get("storageClassName")}
                if wanted != found:
                    problems.append(f"claim {found}, expected {wanted}")
        if "PersistentVolumeClaim" not in notes:
            problems.append("NOTES.txt does not name the PersistentVolumeClaim")
    return problems


def check_saved_queries(label: str, settings: dict, documents: list[dict], notes: str) -> None:
    if by_app(documents, "Deployment") is None:
        return
    store = (settings.get("savedQueries") or {}).get("store")
    persistent = ((settings.get("savedQueries") or {}).get("persistence") or {}).get("enabled")
    where = "Redis" if store == "redis" else "a PersistentVolumeClaim" if persistent else "an emptyDir"
    check(f"{label}: {APP} saved queries in {where}, the path in config.yaml",
          "; ".join(saved_queries_problems(settings, documents, notes)) or None)


def check_saved_queries_secret(render: Callable[[dict], dict[str, str]]) -> None:
    """savedQueries.redis.existingSecret: the URL comes from that Secret as an environment
    variable the configuration names; no data volume."""
    values = {APP: {"replicaCount": 2, "savedQueries": {
        "store": "redis", "redis": {"existingSecret": "console-redis", "existingSecretKey": "url"}}}}
    documents = [doc for path, text in render(values).items() if path.endswith(".yaml")
                 for doc in yaml.safe_load_all(text) if doc]
    configmap, deployment = by_app(documents, "ConfigMap"), by_app(documents, "Deployment")
    section = yaml.safe_load(configmap["data"]["config.yaml"])["saved_queries"]
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e.get("valueFrom") for e in container.get("env", [])}
    problems = []
    if section != {"store": "redis", "redis": {"url": "${CONSOLE_SAVED_QUERIES_REDIS_URL}"}}:
        problems.append(f"saved_queries is {section}")
    if env.get("CONSOLE_SAVED_QUERIES_REDIS_URL") != {"secretKeyRef": {"name": "console-redis", "key": "url"}}:
        problems.append(f"env is {env}")
    if any(m["mountPath"] == CONSOLE_DATA_DIR for m in container.get("volumeMounts", [])):
        problems.append(f"{CONSOLE_DATA_DIR} mounted with store redis")
    check(f"helm {APP} savedQueries.redis.existingSecret: the URL from the Secret, 2 replicas", "; ".join(problems) or None)


REFUSED_SAVED_QUERIES = [
    (
        "admin-console with 2 replicas and the embedded saved-queries store",
        {APP: {"replicaCount": 2}},
        ["admin-console", "replicaCount 2", "savedQueries.store: redis"],
    ),
    (
        "admin-console's saved queries in Redis without a URL",
        {APP: {"savedQueries": {"store": "redis"}}},
        ["savedQueries.redis.url", "existingSecret"],
    ),
]
