"""A Docker engine the container test owns: Debian's dockerd started by PID with its data root,
exec root and socket in a scratch folder, no default bridge and no iptables rules (user-defined
networks still work), stopped at the end with everything it started.

Cleanup does not trust the engine: after dockerd is stopped, every process whose command line
names the scratch folder (containerd, shims) is killed by PID, and every mount below it unmounted.
"""
from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

# Debian's client (docker.io) speaks to Debian's engine and has BuildKit built in; another
# `docker` earlier on PATH (a newer client without the buildx plugin) cannot build.
DOCKER = "/usr/bin/docker" if Path("/usr/bin/docker").exists() else "docker"


def die_with_parent() -> None:
    """In the engine's process: TERM when the test's process ends, however it ends (even killed
    with SIGKILL, when no clean-up of ours runs); dockerd then stops its containers and exits."""
    libc = ctypes.CDLL(None, use_errno=True)
    PR_SET_PDEATHSIG = 1
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


def wait_until(what: str, timeout: float, ready) -> None:
    """Polls `ready()` until it is true; fails naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    delay = 0.05
    while True:
        if ready():
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(delay)
        delay = min(delay * 2, 1.0)


class Engine:
    def __init__(self) -> None:
        # Unix socket paths are limited to 108 bytes: keep the scratch folder short.
        self.scratch = Path(tempfile.mkdtemp(prefix="dk.", dir="/tmp"))
        self.socket = self.scratch / "docker.sock"
        self.log = self.scratch / "dockerd.log"
        self.process: subprocess.Popen | None = None
        self.env = {**os.environ, "DOCKER_HOST": f"unix://{self.socket}", "DOCKER_BUILDKIT": "1",
                    "DOCKER_CONFIG": str(self.scratch / "client")}

    def start(self) -> None:
        command = [
            "dockerd", "--data-root", str(self.scratch / "data"), "--exec-root", str(self.scratch / "exec"),
            "--host", f"unix://{self.socket}", "--pidfile", str(self.scratch / "dockerd.pid"),
            "--bridge=none", "--iptables=false", "--ip6tables=false", "--ip-masq=false",
        ]
        if os.geteuid() != 0:
            command = ["sudo", "-n", *command]
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                                            preexec_fn=die_with_parent)
        print(f"dockerd pid {self.process.pid}, scratch {self.scratch}", flush=True)

        def ready() -> bool:
            if self.process.poll() is not None:
                raise RuntimeError(f"dockerd exited with {self.process.returncode}:\n{self.log.read_text()[-3000:]}")
            return self.socket.exists() and self.run("version", check=False, quiet=True).returncode == 0

        wait_until("dockerd to answer", 60, ready)

    def run(self, *args: str, check: bool = True, quiet: bool = False, input: str | None = None,
            env: dict | None = None, timeout: float = 900) -> subprocess.CompletedProcess:
        completed = subprocess.run([DOCKER, *args], env={**self.env, **(env or {})}, capture_output=True,
                                   text=True, input=input, timeout=timeout)
        if check and completed.returncode != 0:
            raise RuntimeError(f"docker {' '.join(args)} failed ({completed.returncode}):\n"
                               f"{completed.stdout[-3000:]}{completed.stderr[-3000:]}")
        return completed

    def out(self, *args: str) -> str:
        return self.run(*args).stdout.strip()

    def stop(self) -> None:
        """Removes every container, stops dockerd, then kills and unmounts whatever is left."""
        if self.process is not None and self.process.poll() is None:
            try:
                ids = self.run("ps", "-aq", check=False, quiet=True, timeout=30).stdout.split()
                if ids:
                    self.run("rm", "-f", *ids, check=False, timeout=120)
            except subprocess.TimeoutExpired:
                pass
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for pid in self.leftover_pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        wait_until("the engine's processes to exit", 30, lambda: not self.leftover_pids())
        mounts = [line.split()[1] for line in Path("/proc/mounts").read_text().splitlines()
                  if line.split()[1].startswith(str(self.scratch))]
        for mount in sorted(mounts, key=len, reverse=True):
            subprocess.run(["umount", "-l", mount], check=False)
        shutil.rmtree(self.scratch, ignore_errors=True)

    def leftover_pids(self) -> list[int]:
        """Processes started for this engine: those whose command line names the scratch folder
        (dockerd, containerd, shims) and all their descendants (the containers' processes)."""
        named, parents = set(), {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                cmdline = (entry / "cmdline").read_bytes()
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            pid = int(entry.name)
            parents[pid] = int(stat.rsplit(")", 1)[1].split()[1])
            if str(self.scratch).encode() in cmdline:
                named.add(pid)
        found = set(named)
        grew = True
        while grew:
            children = {pid for pid, parent in parents.items() if parent in found} - found
            grew = bool(children)
            found |= children
        return sorted(found)
