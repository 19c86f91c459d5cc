"""Exit codes (tools/wirecheck/exitcodes.py) are distinct, and every one is documented where users look: the
README's exit-code paragraph, `wirecheck --help` and the GitHub Action's verdict step."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from wirecheck import exitcodes
from wirecheck.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
CODES = {name: value for name, value in vars(exitcodes).items() if name.isupper() and isinstance(value, int)}


def test_each_exit_code_has_one_meaning() -> None:
    assert len(set(CODES.values())) == len(CODES), CODES
    assert CODES["RUN_FAILED"] == 5 and CODES["FINDINGS"] == 1  # a run failure is never "non-conforming"


def test_every_exit_code_is_documented_in_the_readme_the_help_and_the_action() -> None:
    readme = ROOT.joinpath("README.md").read_text()
    section = readme[readme.index("**Exit codes**"):]
    table = section[section.index("| code |"):]
    paragraph = table[:table.index("\n\n")]
    helped = " ".join(CliRunner().invoke(app, ["--help"]).output.split())
    action = ROOT.joinpath("action.yml").read_text()
    verdict_step = action[action.index("- name: Verdict"):]
    for name, value in CODES.items():
        assert f"| `{value}` |" in paragraph, (name, "README's exit-code table")
        assert re.search(rf"\b{value} [a-z]", helped), (name, "wirecheck --help")
        if value:
            assert re.search(rf"^\s+{value}\) echo", verdict_step, re.M) or value == exitcodes.USAGE, (name, "action")
