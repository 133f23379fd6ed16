"""What scripts/check-packaging.py and packaging_chart.py share: the paths, the results list
with `check`, running a command, and `<binary> --validate-config` on a configuration."""
from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = ROOT / ".venv" / "bin"
BINARIES = {name: ROOT / "target" / "debug" / name for name in ("admin-console", "authproxy", "ingress-dash")}
CHART = ROOT / "helm" / "search-platform"
# admin-console's data directory (saved queries) in its image, compose and the chart.
CONSOLE_DATA_DIR = "/var/lib/admin-console"

results: list[tuple[str, str | None]] = []


def check(name: str, problem: str | None) -> None:
    results.append((name, problem))
    print(f"{'ok  ' if problem is None else 'FAIL'} {name}" + ("" if problem is None else f"\n     {problem}"))


def run(command: list[str], env: dict[str, str] | None = None) -> tuple[int, str]:
    completed = subprocess.run(command, capture_output=True, text=True, env=env)
    return completed.returncode, (completed.stdout + completed.stderr).strip()


def validate_service_config(
    binary: str, config_text: str, env: dict[str, str], label: str, mounts: list[str] = ()
) -> None:
    """`<binary> --validate-config` on the text. Files the configuration names under a volume
    mount of the pod (a CA from a Secret) exist only in the pod: they are stood in for by empty
    files below a scratch directory, and the configuration is pointed there."""
    with tempfile.TemporaryDirectory() as scratch:
        for mount in mounts:
            pattern = re.escape(mount.rstrip("/")) + r"/[^\s\"',}\]]+"
            for referenced in set(re.findall(pattern, config_text)):
                stand_in = Path(scratch + referenced)
                stand_in.parent.mkdir(parents=True, exist_ok=True)
                stand_in.touch()
            config_text = re.sub(pattern, lambda m: scratch + m.group(0), config_text)
        config_file = Path(scratch) / "config.yaml"
        config_file.write_text(config_text)
        clean_env = {"PATH": os.environ.get("PATH", ""), **env}
        code, output = run([str(BINARIES[binary]), "--config", str(config_file), "--validate-config"], clean_env)
        check(f"{label}: {binary} --validate-config", None if code == 0 else output)
