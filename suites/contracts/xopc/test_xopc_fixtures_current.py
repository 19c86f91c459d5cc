"""The committed xopc fixtures are exactly what xopc_cases.py describes (regenerate: python xopc_fixtures.py)."""

from __future__ import annotations

import pytest
from xopc_fixtures import FIXTURES, rendered

RENDERED = rendered()


@pytest.mark.parametrize("path", sorted(RENDERED), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_committed_fixture_matches_its_case(path):
    assert path.is_file(), f"{path} is missing: run python suites/contracts/xopc/xopc_fixtures.py"
    assert path.read_text(encoding="utf-8") == RENDERED[path], f"{path} drifted from xopc_cases.py"


def test_no_fixture_without_a_case():
    # <version>/live/ holds what `nox -s live-xopc` recorded from the real worker, <version>/runtimes/ what runtimes
    # did under the stub's faults (both replayed by suites/stub)
    committed = {p for p in FIXTURES.rglob("*")
                 if p.is_file() and not {"live", "runtimes"} & set(p.relative_to(FIXTURES).parts[1:2])}
    assert committed - set(RENDERED) == set()
