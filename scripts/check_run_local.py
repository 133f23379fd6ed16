#!/usr/bin/env python3
"""`make run`'s Ctrl+C, checked: an interactive bash on a pseudo-terminal of its own runs
`make run` (or the command given) as a user types it, the check waits until every service and
dependency answers, records every process below the shell, types Ctrl+C twice (the kernel sends
SIGINT to the foreground job), and checks that the command returns to the prompt with exit status
0 and that none of those processes is left. The shell stays, as a user's does: its exit would hang up the terminal
and kill by SIGHUP what the command left behind, hiding the fault. "Answers" includes the front door: the
OpenID provider's discovery document, and nginx on 8880 and 8881 sending a browser without a session to
authproxy's sign-in (and through it to the provider's form). Uses the ports make run uses (8080, 9000, 3000,
their internal listeners 8081, 9001, 3001, 9200-9202 and 9300-9302 (the search nodes), 9090, 9114, 6379, 6443, 5556, 8880, 8881): run it where they are free. Exit status 0 when all is well."""
from __future__ import annotations

import fcntl
import os
import pty
import re
import signal
import subprocess
import sys
import tempfile
import termios
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENDPOINTS = ["http://127.0.0.1:8080/api/live", "http://127.0.0.1:9000/healthz", "http://127.0.0.1:3000/api/live",
             "http://127.0.0.1:6443/api", "http://127.0.0.1:9200/", "http://127.0.0.1:9090/-/ready",
             # The search cluster seeded (its snapshot is the seed's last step).
             "http://127.0.0.1:9200/_snapshot/backups/orders-nightly",
             "http://127.0.0.1:9200/_data_stream/events-checkout",
             "http://127.0.0.1:5556/.well-known/openid-configuration",
             # The services' internal listeners: metrics (and authproxy's check) for Prometheus and nginx.
             "http://127.0.0.1:8081/_metrics", "http://127.0.0.1:9001/_metrics", "http://127.0.0.1:3001/_metrics"]
FRONT_DOORS = ["http://127.0.0.1:8880/", "http://127.0.0.1:8881/"]
SIGN_IN = "http://127.0.0.1:9000/auth/start?rd="


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def sends_to_sign_in(url: str) -> bool:
    """A browser without a session at the front door: nginx's 302 to authproxy's sign-in, with
    the page as rd."""
    request = urllib.request.Request(url, headers={"Accept": "text/html"})
    try:
        urllib.request.build_opener(NoRedirect).open(request, timeout=2)
        return False
    except urllib.error.HTTPError as error:
        return error.code == 302 and error.headers.get("Location") == SIGN_IN + url
    except OSError:
        return False


def up() -> bool:
    return all(answers(url) for url in ENDPOINTS) and all(sends_to_sign_in(url) for url in FRONT_DOORS)


def descendants(root: int) -> set[int]:
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                pass
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    except OSError:
        return False


def main() -> int:
    log = tempfile.NamedTemporaryFile(prefix="run-local.", suffix=".log", delete=False)
    master, terminal = pty.openpty()

    def controlling_terminal() -> None:
        # A user's terminal starts its shell with SIGINT and SIGQUIT at their defaults. This
        # check may run where they are ignored (started in the background by a non-interactive
        # shell), and an ignored SIGINT is passed on to make and the script, whose Ctrl+C would
        # then never arrive.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGQUIT, signal.SIG_DFL)
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    command = " ".join(sys.argv[1:] or ["make", "run"])
    shell = subprocess.Popen(["bash", "--norc", "--noprofile", "-i"], cwd=ROOT, stdin=terminal, stdout=terminal,
                             stderr=terminal, preexec_fn=controlling_terminal, env={**os.environ, "PS1": "$ ", "PROMPT_COMMAND": 'echo "RUN-LOCAL-PROMPT $?"'})
    os.close(terminal)

    def drain() -> None:  # the terminal's output, to the log (a full terminal would block them)
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                return
            if not data:
                return
            log.write(data)
            log.flush()

    threading.Thread(target=drain, daemon=True).start()
    # Each prompt is preceded by a marker line with the last exit status: the first comes before
    # the command is typed, the second when it has returned (a Ctrl+C also cancels the rest of a
    # typed command list, so a marker echoed after the command would never show).
    os.write(master, f"{command}\n".encode())

    def prompts() -> list[bytes]:
        return re.findall(rb"RUN-LOCAL-PROMPT (\d+)", Path(log.name).read_bytes())

    def returned() -> bool:
        return len(prompts()) >= 2

    deadline = time.monotonic() + float(os.environ.get("RUN_LOCAL_TIMEOUT", "1800"))  # includes the build
    try:
        while not up():
            if returned() or time.monotonic() > deadline:
                print(f"FAIL {command} did not come up; log {log.name}:")
                print(Path(log.name).read_text()[-3000:])
                return 1
            time.sleep(0.5)
        started = descendants(shell.pid)
        print(f"ok   {command} is up: {len(started)} processes below the shell")
        # Ctrl+C, and again at once, as an impatient user does: neither may cut the clean-up short.
        os.write(master, b"\x03")
        time.sleep(0.3)  # a user's second key press, not a wait for a condition
        os.write(master, b"\x03")
        deadline = time.monotonic() + 60
        while not returned():
            if time.monotonic() > deadline:
                print(f"FAIL {command} did not return within 60 s of Ctrl+C")
                return 1
            time.sleep(0.1)
        code = prompts()[1].decode()
        left = sorted(pid for pid in started if alive(pid))
        names = {pid: Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")[:80] for pid in left if alive(pid)}
        # A Ctrl+C is how make run is meant to end: it exits 0 (not make's "Error 1", nor 130).
        good = not left and code == "0"
        print(f"{'ok  ' if good else 'FAIL'} Ctrl+C: {command} returned {code} (0 wanted); left running: {names or 'nothing'}")
        return 0 if good else 1
    finally:
        # Nothing of it may outlive the check, whatever the verdict: all below the shell (and
        # those seen below it before), then the shell.
        for pid in descendants(shell.pid) | (started if "started" in locals() else set()):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        shell.kill()
        shell.wait()

if __name__ == "__main__":
    sys.exit(main())
