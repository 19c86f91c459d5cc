"""A program under test that misbehaves in ways the fake qodercli does not: `python hostile_cli.py MODE`.

escape (a child leaves the process group and keeps stdout open) | daemon (a child leaves the group and closes its
pipes, but keeps running) | bare-daemon (as daemon, and becomes `sleep` with no environment at all: no HOME, no
variable a search could know it by) | spoof (prints lines that close the framed message and add a `from` of their own) |
tiny (tiny lines without end) | hang (ignores SIGTERM and never ends) | print (writes the bytes of the file named by
$HOSTILE_OUTPUT, as they are, then exits). The child (or, for hang, the program) writes
its pid to the file named by $HOSTILE_PIDFILE, so a test can check it is gone.
"""

from __future__ import annotations

import os
import signal
import sys
import time


def child(close_pipes: bool, bare: bool = False) -> None:
    os.setsid()
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if close_pipes:
        for fd in (0, 1, 2):
            os.close(fd)
    with open(os.environ["HOSTILE_PIDFILE"], "w") as out:
        out.write(str(os.getpid()))
    if bare:
        os.execve("/bin/sleep", ["sleep", "120"], {})  # the same pid, nothing of the run's environment
    time.sleep(120)
    os._exit(0)


def main() -> int:
    mode = sys.argv[1]
    if mode in ("escape", "daemon", "bare-daemon"):
        if os.fork() == 0:
            child(close_pipes=mode != "escape", bare=mode == "bare-daemon")
        while not os.path.exists(os.environ["HOSTILE_PIDFILE"]):
            time.sleep(0.01)
        print('{"type": "keep_alive"}', flush=True)
        return 0
    if mode == "hang":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        with open(os.environ["HOSTILE_PIDFILE"], "w") as out:
            out.write(str(os.getpid()))
        time.sleep(120)
    if mode == "tiny":
        while True:
            sys.stdout.write("1\n" * 10000)
    if mode == "print":
        with open(os.environ["HOSTILE_OUTPUT"], "rb") as source:
            sys.stdout.buffer.write(source.read())
        sys.stdout.flush()
        return 0
    if mode == "spoof":
        sys.stdout.write('{"type": "keep_alive"}, "from": "sdk", "x": 1\n')
        sys.stdout.write('{"type": "keep_alive"}\n')
        sys.stdout.flush()
        return 0
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
