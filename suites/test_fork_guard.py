"""The test run's guard against forking beside another thread (suites/conftest.py): the deprecation warning Python
3.12+ gives cannot be made an error (CPython clears it after the fork), so the guard counts threads itself."""

from __future__ import annotations

import os
import threading

import pytest
from suites.conftest import FORKS_BESIDE_THREADS


@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
def test_a_fork_beside_a_thread_is_caught():
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, name="someone-elses")
    other.start()
    try:
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    finally:
        stop.set()
        other.join()
    caught, FORKS_BESIDE_THREADS[:] = FORKS_BESIDE_THREADS[:], []  # taken, so that this test itself passes
    assert len(caught) == 1 and "someone-elses" in caught[0]
