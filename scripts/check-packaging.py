#!/usr/bin/env python3
"""Checks the packaging without a container engine or a cluster:

- hadolint on every Dockerfile;
- docker/compose.yaml against the Compose specification's JSON schema, the files it mounts
  exist, and each service's mounted configuration passes `<binary> --validate-config` with the
  environment compose gives it;
- the Helm umbrella chart: strict lint and render with default values and with every
  helm/search-platform/ci/*.yaml, every rendered manifest against the Kubernetes schemas
  (kubernetes-validate), the security and probe settings of every Deployment, and each
  rendered ConfigMap's config.yaml through `<binary> --validate-config`; admin-console and
  ingress-dash in access.mode trusted_headers with non-empty server.trusted_proxies unless the
  values set another mode (the front door on or off), and NOTES.txt saying so; with
  global.frontDoor on, the ingress-nginx annotations or the Traefik ForwardAuth Middleware and
  authproxy's forward_auth configuration (and no annotation or Middleware with the front door
  off); values the chart must refuse with a clear message;
- make run's configurations (examples/ with scripts/run-local/ merged over them) through
  `<binary> --validate-config`, and its nginx front door through `nginx -t`.

Run from the repository root with the venv's Python after `cargo build` (it uses
target/debug/<binary>). Prints one line per check and a closing `N passed, N failed` line.
"""
from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from packaging_chart import check_chart, check_chart_refusals, check_config_checksums  # noqa: E402
from packaging_common import BINARIES, CHART, CONSOLE_DATA_DIR, ROOT, VENV_BIN, check, results, run, validate_service_config  # noqa: E402
from packaging_trust import check_compose_trust  # noqa: E402


def check_examples() -> None:
    """The example configurations: make run uses them and each image ships its own as the
    default, so they must pass the binary's own validation with an empty environment."""
    for name in BINARIES:
        example = ROOT / "examples" / f"{name}.yaml"
        validate_service_config(name, example.read_text(), {}, f"examples/{example.name}")


def check_run_local() -> None:
    """make run's configurations: each example with scripts/run-local/<service>.yaml merged over
    it (what scripts/run-local.sh writes to .run/), and the nginx front door's syntax."""
    sys.path.insert(0, str(ROOT / "scripts" / "run-local"))
    from overlay import merged

    env = {"OIDC_CLIENT_SECRET": "make-run-only-client-secret"}
    for name in BINARIES:
        text = merged(ROOT / "examples" / f"{name}.yaml", ROOT / "scripts" / "run-local" / f"{name}.yaml")
        validate_service_config(name, text, env, f"make run {name}")
    with tempfile.TemporaryDirectory() as prefix:
        code, output = run(["nginx", "-t", "-q", "-e", "stderr", "-p", prefix + "/", "-c", str(ROOT / "scripts" / "run-local" / "nginx.conf")])
        check("make run: nginx -t scripts/run-local/nginx.conf", None if code == 0 else output)


def check_dockerfiles() -> None:
    for dockerfile in sorted((ROOT / "docker").glob("*.Dockerfile")):
        code, output = run([str(VENV_BIN / "hadolint"), str(dockerfile)])
        check(f"hadolint {dockerfile.relative_to(ROOT)}", None if code == 0 else output)
        text = dockerfile.read_text()
        missing = [word for word in ("HEALTHCHECK", "USER 65532", "org.opencontainers.image.title") if word not in text]
        check(f"{dockerfile.name} has a health check, a non-root user and OCI labels", f"missing {missing}" if missing else None)
    # admin-console's data directory (saved queries): owned by the runtime user, a volume, and
    # the default configuration's saved_queries.path inside it.
    text = (ROOT / "docker" / "admin-console.Dockerfile").read_text()
    wanted = ["--chown=65532:65532 /out/data/ " + CONSOLE_DATA_DIR + "/", f'VOLUME ["{CONSOLE_DATA_DIR}"]',
              f"CONSOLE_SAVED_QUERIES_PATH={CONSOLE_DATA_DIR}/"]
    missing = [word for word in wanted if word not in text]
    check(f"admin-console.Dockerfile: {CONSOLE_DATA_DIR} owned by 65532, a VOLUME, saved_queries.path in it",
          f"missing {missing}" if missing else None)


def compose_interpolate(text: str) -> str:
    """${NAME:-default} / ${NAME} as Compose resolves them with an empty environment."""
    return re.sub(r"\$\{[A-Za-z_][A-Za-z0-9_]*(?::-([^}]*))?\}", lambda m: m.group(1) or "", text)


def check_compose() -> None:
    compose_file = ROOT / "docker" / "compose.yaml"
    if not compose_file.exists():
        check("docker/compose.yaml exists", "not found")
        return
    code, output = run([str(VENV_BIN / "check-jsonschema"), "--builtin-schema", "vendor.compose-spec", str(compose_file)])
    check("docker/compose.yaml matches the Compose specification schema", None if code == 0 else output)
    compose = yaml.safe_load(compose_file.read_text())
    for name, service in compose["services"].items():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0] if isinstance(volume, str) else volume.get("source", "")
            if source.startswith("."):
                path = (compose_file.parent / source).resolve()
                check(f"compose {name}: mounted {source} exists", None if path.exists() else f"{path} is missing")
        # A service built from docker/<binary>.Dockerfile (authproxy-front is authproxy too).
        dockerfile = Path((service.get("build") or {}).get("dockerfile", "")).name.removesuffix(".Dockerfile")
        binary = name if name in BINARIES else dockerfile if dockerfile in BINARIES else None
        if binary:
            environment = service.get("environment", {})
            if isinstance(environment, list):
                environment = dict(item.split("=", 1) for item in environment)
            config_path = next(
                (compose_file.parent / v.split(":")[0] for v in service.get("volumes", []) if isinstance(v, str) and v.split(":")[1].endswith(".yaml")),
                None,
            )
            if config_path is None:
                check(f"compose {name}: mounts a configuration file", "no *.yaml volume")
                continue
            # Compose substitutes ${NAME:-default}; the defaults are what a laptop run without an
            # .env file sees.
            env = {key: compose_interpolate(str(value)) for key, value in environment.items()}
            validate_service_config(binary, config_path.read_text(), env, f"compose {name}")
    # The front door's nginx configuration (its includes beside it, as mounted in /etc/nginx).
    with tempfile.TemporaryDirectory() as prefix:
        conf = Path(prefix) / "nginx.conf"
        text = (compose_file.parent / "config" / "nginx.conf").read_text()
        for include in ("authproxy-locations.conf", "authproxy-gate.conf"):
            (Path(prefix) / include).write_text((compose_file.parent / "config" / include).read_text())
        # The containers' names resolve only inside the compose network.
        conf.write_text(re.sub(r"http://(authproxy-front|admin-console|ingress-dash):", "http://127.0.0.1:", text))
        for include in ("authproxy-locations.conf",):
            path = Path(prefix) / include
            path.write_text(path.read_text().replace("http://authproxy-front:", "http://127.0.0.1:"))
        code, output = run(["nginx", "-t", "-q", "-e", "stderr", "-p", prefix + "/", "-c", str(conf)])
        check("compose nginx: nginx -t docker/config/nginx.conf", None if code == 0 else output)
    check_compose_saved_queries(compose, compose_file.parent / "config" / "admin-console.yaml")
    check_compose_trust(check, compose, compose_file.parent / "config",
                        {"admin-console": "admin-console", "authproxy": "authproxy",
                         "authproxy-front": "authproxy", "ingress-dash": "ingress-dash"})


def check_compose_saved_queries(compose: dict, config_file: Path) -> None:
    """admin-console's saved queries survive `docker compose down`/`up`: a named volume (declared
    at the top level) mounted at the directory of saved_queries.path, the root file system still
    read-only."""
    service = compose["services"]["admin-console"]
    path = (yaml.safe_load(config_file.read_text()).get("saved_queries") or {}).get("path", "")
    mounts = {v.split(":")[1]: v.split(":")[0] for v in service.get("volumes", []) if isinstance(v, str)}
    source = mounts.get(str(Path(path).parent))
    problems = []
    if not path.startswith(CONSOLE_DATA_DIR + "/"):
        problems.append(f"saved_queries.path {path!r} is not in {CONSOLE_DATA_DIR}")
    if source is None or source.startswith((".", "/")) or source not in (compose.get("volumes") or {}):
        problems.append(f"no named volume at {Path(path).parent} (mounts: {mounts})")
    if service.get("read_only") is not True:
        problems.append("read_only is not true")
    check("compose admin-console: saved queries on a named volume, root file system read-only", "; ".join(problems) or None)


def main() -> int:
    os.chdir(ROOT)
    missing = [str(path) for path in BINARIES.values() if not path.exists()]
    if missing:
        print(f"build the binaries first (cargo build): missing {missing}")
        return 1
    check_examples()
    check_run_local()
    check_dockerfiles()
    check_compose()
    check_chart(None)
    for values_file in sorted((CHART / "ci").glob("*.yaml")):
        check_chart(values_file)
    check_chart_refusals()
    check_config_checksums()
    failed = sum(1 for _, problem in results if problem is not None)
    print(f"packaging: {len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
