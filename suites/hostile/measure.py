"""Run one command under resource limits and write its exit status and peak resident memory (JSON) to a file.

    python measure.py RESULT.json ADDRESS_SPACE CPU_SECONDS [FILE_SIZE] -- COMMAND...

FILE_SIZE (bytes, RLIMIT_FSIZE) stands in for a full disk: a write past it fails with EFBIG (Python ignores
SIGXFSZ), as one onto a full disk fails with ENOSPC.

A process's peak memory (`ru_maxrss`) counts what it held before `exec` too, and a child forked from a pytest worker
holds the worker's hundreds of megabytes until then. This small process is what the command is forked from, so the
figure is the command's own."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys


def main() -> None:
    separator = sys.argv.index("--")
    (result, address_space, cpu, *file_size), command = sys.argv[1:separator], sys.argv[separator + 1:]

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (int(address_space), int(address_space)))
        resource.setrlimit(resource.RLIMIT_CPU, (int(cpu), int(cpu) + 5))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if file_size:
            resource.setrlimit(resource.RLIMIT_FSIZE, (int(file_size[0]), resource.RLIM_INFINITY))

    process = subprocess.Popen(command, preexec_fn=limits)  # this process has no threads: preexec_fn is safe
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    with open(result, "w") as out:
        json.dump({"code": process.returncode, "peak_kib": usage.ru_maxrss}, out)


if __name__ == "__main__":
    main()
