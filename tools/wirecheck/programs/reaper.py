"""The reaper: every program wirecheck starts is started by this script, which stays its parent until the end.

    python -I -S -X utf8 reaper.py FD

FD is one end of a socket pair; wirecheck holds the other. This script reads one JSON line from it,
`{"argv": [...], "env": {...}, "cwd": "...", "scratch": "..."}`, becomes a child subreaper (Linux
`PR_SET_CHILD_SUBREAPER`: every process the program starts that is orphaned, a `setsid` daemon included, is
re-parented here instead of to init), starts the program in a session (and process group) of its own with this
script's standard streams, lets go of those streams, and answers with JSON lines:

    {"pid": N}                          the program started (or {"error": errno, "message": "..."}: it did not)
    {"exit": CODE}                      the program exited (CODE as subprocess reports it: -N for signal N)
    {"done": true, "escaped": [...],    after a stop: every process is gone; each {"pid", "name"} had left the
     "ended_by": SIGNAL}                program's process group and was still running, and was killed; SIGNAL
                                        says what ended the program itself: "SIGTERM" (it exited within the
                                        grace), "SIGKILL" (it did not), null (it had exited before the stop)

It stops on `{"stop": GRACE}` from wirecheck, on end of file (wirecheck is gone, even by SIGKILL) and on SIGTERM,
SIGHUP or SIGINT: SIGTERM to the program's group, GRACE seconds for it to exit, then SIGKILL to the group and to
every process left under this one, round after round, until none is left. Orphans that exit on their own are
reaped as they go, so no zombie is left either. When wirecheck is gone by then, nobody else will remove the
program's scratch folder (`scratch`, a `wirecheck-run-*` folder: its HOME, TMPDIR, work folder): this script does.

Only the standard library, no wirecheck import: it runs isolated (-I) and without site-packages (-S), so it starts in
a few milliseconds and nothing of the user's environment (PYTHONPATH, a sitecustomize) runs in it.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import time
from typing import Any

PR_SET_CHILD_SUBREAPER = 36
CLEANUP_SECONDS = 10.0  # rounds of killing what is left under the reaper end after this long (a fork bomb)
SCRATCH_PREFIX = "wirecheck-run-"  # programs.Scratch's folders: the only ones this script removes


def become_subreaper() -> None:
    with contextlib.suppress(Exception):  # not Linux, or no libc to ask: only the process group is ended
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def children() -> list[tuple[int, int, str, str]]:
    """The processes whose parent is this one: (pid, process group, state, name), from /proc (Linux)."""
    me = os.getpid()
    try:
        with open(f"/proc/{me}/task/{me}/children") as listing:
            pids = [int(p) for p in listing.read().split()]
    except OSError:  # no CONFIG_PROC_CHILDREN: look at every process's parent
        try:
            pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
        except OSError:
            return []
    found = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as stat:
                raw = stat.read()
        except OSError:
            continue
        name, _, rest = raw[raw.find(b"(") + 1:].rpartition(b")")
        fields = rest.split()
        if len(fields) >= 3 and int(fields[1]) == me:
            found.append((pid, int(fields[2]), fields[0].decode("ascii", "replace"), name.decode("utf-8", "replace")))
    return found


class Reaper:
    def __init__(self, control: socket.socket):
        self.control = control
        self.target: int | None = None
        self.running = False

    def send(self, message: dict[str, Any]) -> None:
        with contextlib.suppress(OSError):  # wirecheck is gone: the cleanup goes on all the same
            self.control.sendall(json.dumps(message).encode() + b"\n")

    def reap(self) -> None:
        """Collect every child that has exited; the program's exit is reported."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid == self.target and self.running:
                self.running = False
                self.send({"exit": os.waitstatus_to_exitcode(status)})

    def stop(self, grace: float) -> None:
        group = self.target
        assert group is not None
        self.reap()  # an exit that came just before the stop is the program's own, not the stop's doing
        ended_by = None
        if self.running:
            ended_by = "SIGTERM"
            with contextlib.suppress(OSError):
                os.killpg(group, signal.SIGTERM)
            deadline = time.monotonic() + grace
            while self.running and time.monotonic() < deadline:
                time.sleep(0.02)
                self.reap()
            if self.running:
                ended_by = "SIGKILL"
        escaped: dict[int, str] = {}
        deadline = time.monotonic() + CLEANUP_SECONDS
        while True:
            with contextlib.suppress(OSError):
                os.killpg(group, signal.SIGKILL)
            under = children()
            for pid, pgid, state, name in under:
                if state == "Z":
                    continue
                if pgid != group:
                    escaped.setdefault(pid, name)
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            self.reap()
            if (not under and not _group_alive(group)) or time.monotonic() > deadline:
                break
            time.sleep(0.02)
        self.send({"done": True, "escaped": [{"pid": pid, "name": name} for pid, name in escaped.items()],
                   "left": len(children()), "ended_by": ended_by})

    def run(self, spec: dict[str, Any]) -> None:
        wake_read, wake_write = os.pipe()
        os.set_blocking(wake_read, False)
        os.set_blocking(wake_write, False)
        signal.set_wakeup_fd(wake_write)
        stopping: list[float] = []
        # handlers, not SIG_IGN: an exec resets handlers to the default, but would keep an ignored signal ignored
        signal.signal(signal.SIGCHLD, lambda signum, frame: None)
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(signum, lambda signum, frame: stopping.append(0.0))
        try:
            program = subprocess.Popen(spec["argv"], cwd=spec.get("cwd"), env=spec.get("env"), start_new_session=True,
                                       close_fds=True)
        except OSError as exc:
            self.send({"error": exc.errno or 0, "message": exc.strerror or str(exc)})
            return
        self.target, self.running = program.pid, True
        self.send({"pid": program.pid})
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # the program's streams are its own now: end of file comes when it closes them
            os.dup2(devnull, fd)
        with selectors.DefaultSelector() as selector:
            selector.register(self.control, selectors.EVENT_READ)
            selector.register(wake_read, selectors.EVENT_READ)
            while not stopping:
                self.reap()
                for key, _ in selector.select(1.0):
                    if key.fileobj is self.control:
                        try:
                            data = self.control.recv(4096)
                        except OSError:
                            data = b""
                        if not data:  # wirecheck is gone
                            stopping.append(0.0)
                            break
                        for line in data.splitlines():
                            with contextlib.suppress(ValueError, TypeError, AttributeError):
                                stopping.append(max(float(json.loads(line)["stop"]), 0.0))
                    else:
                        with contextlib.suppress(OSError):
                            while os.read(wake_read, 512):
                                pass
        self.stop(stopping[0])
        scratch = spec.get("scratch")
        if isinstance(scratch, str) and os.path.basename(scratch).startswith(SCRATCH_PREFIX) and self.peer_gone():
            shutil.rmtree(scratch, ignore_errors=True)

    def peer_gone(self) -> bool:
        """wirecheck has closed its end (it ended without removing the scratch folder: killed, or it died)."""
        try:
            self.control.setblocking(False)
            return self.control.recv(1, socket.MSG_PEEK) == b""
        except BlockingIOError:
            return False
        except OSError:
            return True


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except OSError:
        return False
    return True


def main() -> int:
    control = socket.socket(fileno=int(sys.argv[1]))
    os.set_inheritable(control.fileno(), False)
    line = b""
    while not line.endswith(b"\n"):
        chunk = control.recv(65536)
        if not chunk:
            return 1
        line += chunk
    become_subreaper()
    Reaper(control).run(json.loads(line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
