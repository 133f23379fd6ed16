#!/usr/bin/env python3
"""Checks that the two web apps share one toolchain.

admin-console/web and ingress-dash/web must ask for the same versions of the packages they
both build, test and run with, the same Node engine, and have the same script names. Prints
each difference and exits 1 when there is one; exits 0 (saying so) when there is none.

Usage: scripts/check_web_toolchain.py [repository root]
"""

import json
import sys
from pathlib import Path

APPS = ("admin-console/web", "ingress-dash/web")

# The packages both apps use, whose versions are decided once for both.
SHARED_PACKAGES = (
    "react",
    "react-dom",
    "typescript",
    "@types/node",
    "@types/react",
    "@types/react-dom",
    "@vitejs/plugin-react",
    "vite",
    "vitest",
    "jsdom",
    "@testing-library/react",
    "@testing-library/dom",
    "playwright-core",
)

# Both apps answer the same commands.
SCRIPTS = ("dev", "typecheck", "test", "build", "e2e", "bench")


def requested(package: dict, name: str) -> str | None:
    """The version range `package.json` asks for, from dependencies or devDependencies."""
    for section in ("dependencies", "devDependencies"):
        version = package.get(section, {}).get(name)
        if version is not None:
            return version
    return None


def differences(packages: dict[str, dict]) -> list[str]:
    (first, a), (second, b) = packages.items()
    found = []
    for name in SHARED_PACKAGES:
        va, vb = requested(a, name), requested(b, name)
        if va != vb:
            found.append(f"{name}: {first} has {va or 'nothing'}, {second} has {vb or 'nothing'}")
    ea, eb = a.get("engines", {}), b.get("engines", {})
    for engine in sorted(set(ea) | set(eb)):
        if ea.get(engine) != eb.get(engine):
            found.append(
                f"engines.{engine}: {first} has {ea.get(engine) or 'nothing'}, "
                f"{second} has {eb.get(engine) or 'nothing'}"
            )
    if "node" not in ea and "node" not in eb:
        found.append("engines.node: neither app says which Node it needs")
    for app, package in packages.items():
        missing = [script for script in SCRIPTS if script not in package.get("scripts", {})]
        if missing:
            found.append(f"{app}: no npm script {', '.join(missing)}")
    return found


def main() -> int:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent
    packages = {}
    for app in APPS:
        path = root / app / "package.json"
        try:
            packages[app] = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as error:
            print(f"{path}: {error}", file=sys.stderr)
            return 1
    found = differences(packages)
    for difference in found:
        print(f"web toolchain differs: {difference}", file=sys.stderr)
    if found:
        return 1
    print(f"web toolchain: {' and '.join(APPS)} agree on {len(SHARED_PACKAGES)} packages, engines and scripts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
