"""Processes with recorded PIDs, free ports, a small HTTP client and /proc readings."""

import http.client
import os
import signal
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def log(message):
    print(f"[soak {time.strftime('%H:%M:%S')}] {message}", flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what, seconds, ready):
    deadline = time.monotonic() + seconds
    while True:
        try:
            if ready():
                return
        except Exception:  # noqa: BLE001 - not up yet
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} was not ready within {seconds} s")
        time.sleep(0.2)


def http_request(base, path, method="GET", body=None, headers=None, timeout=15,
                 with_headers=False):
    """(status, body text[, headers]); status 0 when the connection failed."""
    host = base.split("://", 1)[1]
    try:
        connection = http.client.HTTPConnection(host, timeout=timeout)
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        text = response.read().decode("utf-8", "replace")
        result = (response.status, text, response.getheaders())
        connection.close()
    except (OSError, http.client.HTTPException) as error:
        result = (0, f"{type(error).__name__}: {error}", [])
    return result if with_headers else result[:2]


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def open_fds(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


class Procs:
    """Every started process by name, its PID recorded; stopped (TERM, then KILL) at the end."""

    def __init__(self, log_dir):
        self.log_dir = log_dir
        os.makedirs(log_dir, exist_ok=True)
        self.running = {}

    def start(self, name, argv, env=None, keep_stdin=False):
        """Starts `argv` with its output in logs/<name>.log; `keep_stdin` gives it a pipe that
        stays open until it is stopped (or this process ends), for a child that stops when its
        standard input closes."""
        out = open(os.path.join(self.log_dir, f"{name}.log"), "ab")
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env,
                                   stdin=subprocess.PIPE if keep_stdin else subprocess.DEVNULL)
        self.running[name] = process
        return process

    def log_path(self, name):
        return os.path.join(self.log_dir, f"{name}.log")

    def pid(self, name):
        return self.running[name].pid

    def pids(self):
        return {name: p.pid for name, p in self.running.items() if p.poll() is None}

    def stop(self, name, timeout=15, sig=signal.SIGTERM):
        """Stops one process; (exit status, seconds it took)."""
        process = self.running.pop(name, None)
        if process is None:
            return None, 0
        started = time.monotonic()
        if process.poll() is None:
            process.send_signal(sig)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        return process.returncode, round(time.monotonic() - started, 2)

    def stop_all(self):
        for name in list(self.running):
            self.stop(name, timeout=10)
