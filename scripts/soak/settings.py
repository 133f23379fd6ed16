"""make soak's settings from the environment (run.py's docstring lists them), fixed values and
the services' port names."""

import os
import sys

from common import ROOT


MINUTES = float(os.environ.get("SOAK_MINUTES", "10"))
SEGMENT = int(os.environ.get("SOAK_SEGMENT_SECONDS", "60"))
FAULT_SECONDS = int(os.environ.get("SOAK_FAULT_SECONDS", "20"))
SSE_CLIENTS = int(os.environ.get("SOAK_SSE_CLIENTS", "1000"))
INGRESSES = int(os.environ.get("SOAK_INGRESSES", "10000"))
NAMESPACES = 100
FUZZ_SECONDS = int(os.environ.get("SOAK_FUZZ_SECONDS", "120"))
KUBE_CACHE = os.path.join(ROOT, ".cache", "kube")
ALL_SERVICES = ["admin-console", "authproxy", "ingress-dash"]
SERVICES = [name.strip() for name in os.environ.get("SOAK_SERVICES", ",".join(ALL_SERVICES)).split(",")
            if name.strip()]
if not SERVICES or any(name not in ALL_SERVICES for name in SERVICES):
    sys.exit(f"soak: SOAK_SERVICES must name some of {', '.join(ALL_SERVICES)}, "
             f"not {os.environ.get('SOAK_SERVICES')!r}")
SERVICES = [name for name in ALL_SERVICES if name in SERVICES]
MALLOC_PROBE = os.environ.get("SOAK_MALLOC_PROBE") == "1"
PROFILE = "fast"
BIN = os.environ.get("SOAK_BIN_DIR") or os.path.join(ROOT, "target", PROFILE)
LUA = os.path.join(ROOT, "scripts", "soak", "mix.lua")
# Password of the Basic user `demo` (bcrypt cost 10), as `make run` has it.
DEMO_HASH = "$2b$10$uAn0p5y/S2uFK1/2fyCGOukyhduTOSviLChHMBbuocdmD0J0gzGTK"
DEMO_BASIC = "Basic ZGVtbzpkZW1vLXBhc3N3b3Jk"  # demo:demo-password
SESSION_SECRET = "soak-session-secret-at-least-32-bytes-long"


def internal(name):
    """The port name of `name`'s internal listener."""
    return f"{name}-internal"


def service_ports():
    """The port names of the selected services."""
    ports = {"admin-console": ["console"], "authproxy": ["forward", "standalone"],
             "ingress-dash": ["dash"]}
    return [port for name in SERVICES for port in ports[name]]
