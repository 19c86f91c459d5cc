"""tools/wirecheck/certify/README.md states the limits users run into: the stub's body rules, the probe's deadline
and URL schemes, and how the pytest plugin reads paths and reports bad settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from wirecheck.stub.server import BODY_TIMEOUT_SECONDS, MAX_BODY_BYTES

README = Path(__file__).parents[2] / "tools" / "wirecheck" / "certify" / "README.md"


def _section(title: str) -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 1)
    return " ".join(text[start:end if end >= 0 else None].split())


@pytest.mark.parametrize(
    "says",
    [
        "capped at 1 MiB", "413", "400", "411", "JSON `{\"error\": ...}`", "are not in the HAR",
        f"within {BODY_TIMEOUT_SECONDS:g} s", "a deadline for the whole body",
        "`--timeout` (default 10 s) bounds a whole call, from connecting to the last byte",
        "not http or https",
    ],
)
def test_the_stub_and_probe_section_states_the_limits(says):
    assert MAX_BODY_BYTES == 1 << 20
    assert says in _section("xopc stub and probe")


@pytest.mark.parametrize(
    "says",
    [
        "command line resolve against the folder pytest was started in",
        "ini file resolve against the ini file's folder",
        "bad `--wirecheck-fail-on`", "a broken baseline", "`--wirecheck-report` folder that cannot be made",
        "before any test runs: pytest exits 4",
    ],
)
def test_the_ci_gate_section_states_paths_and_usage_errors(says):
    assert says in _section("CI gate for adapter pull requests")
