"""Waivers: matched by fingerprint, expire, and a stale one fails the run."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from wirecheck.contracts import load_registry
from wirecheck.diff import diff_releases
from wirecheck.diff.run import DiffRun
from wirecheck.diff.waivers import WaiverFileError, apply_waivers, load_waivers

CATALOGS = Path(__file__).parent / "catalogs"


@pytest.fixture(scope="module")
def result():
    registry = load_registry(CATALOGS)
    return diff_releases(registry.load("shop@1.0.0"), registry.load("shop@1.0.1"))


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "waivers.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_waiver_hides_its_finding_and_only_that(result, tmp_path) -> None:
    errors = [f for f in result.findings if f.severity.value == "error"]
    target = errors[0]
    waivers = load_waivers(_write(tmp_path, f"""
waivers:
  - fingerprint: {target.fingerprint}
    reason: known and announced
    who: alice
    expires: 2999-01-01
"""))
    [waived], problems = apply_waivers([result], waivers, dt.date(2026, 12, 2))
    assert problems == []
    marked = [f for f in waived.findings if f.waived]
    assert [f.fingerprint for f in marked] == [target.fingerprint]
    assert marked[0].waived == "known and announced (alice)"
    assert DiffRun((waived,)).counts()["waived"] == 1


def test_stale_waiver_fails_the_run(result, tmp_path) -> None:
    waivers = load_waivers(_write(tmp_path, "waivers:\n  - {fingerprint: '000000000000', reason: gone, who: bob}\n"))
    results, problems = apply_waivers([result], waivers)
    assert [p.rule for p in problems] == ["WAIVER_STALE"]
    assert DiffRun(tuple(results), fail_on="never", waiver_findings=tuple(problems)).exit_code() == 1


def test_expired_waiver_no_longer_hides(result, tmp_path) -> None:
    target = result.findings[0]
    waivers = load_waivers(_write(tmp_path, f"""
waivers:
  - {{fingerprint: {target.fingerprint}, reason: temporary, who: carol, expires: 2026-01-01}}
"""))
    [after], problems = apply_waivers([result], waivers, dt.date(2026, 12, 2))
    assert [p.rule for p in problems] == ["WAIVER_EXPIRED"]
    assert not any(f.waived for f in after.findings)


@pytest.mark.parametrize("text", [
    "waivers:\n  - {fingerprint: xyz, reason: r, who: w}\n",
    "waivers:\n  - {fingerprint: '000000000000', who: w}\n",
    "waivers:\n  - {fingerprint: 000000000000, reason: unquoted digits, who: w}\n",
    "nope: []\n",
    "waivers: [\n",
])
def test_bad_waiver_file_is_a_located_usage_error(tmp_path, text) -> None:
    with pytest.raises(WaiverFileError) as info:
        load_waivers(_write(tmp_path, text))
    assert "waivers.yaml" in str(info.value)


@pytest.mark.parametrize("expires", ['"2027-02-30"', '"0000-01-01"', '"\uff12\uff10\uff12\uff17-01-01"', '"2027-1-01"'])
def test_a_date_that_does_not_exist_is_a_located_usage_error(tmp_path, expires) -> None:
    """Quoted, the date is text YAML does not build: the waivers file's schema must refuse it, not the date
    parser later (an internal error)."""
    with pytest.raises(WaiverFileError) as info:
        load_waivers(_write(tmp_path, "waivers:\n  - {fingerprint: '0123456789ab', reason: r, who: w,\n"
                                      f"     expires: {expires}}}\n"))
    assert "waivers.yaml#/waivers/0/expires: " in str(info.value) and str(info.value).endswith("(line 3)")


def test_a_bad_waiver_names_its_line(tmp_path) -> None:
    with pytest.raises(WaiverFileError) as info:
        load_waivers(_write(tmp_path, "waivers:\n  - {fingerprint: '0123456789ab', reason: r, who: w}\n"
                                      "  - {fingerprint: 000000000000, reason: unquoted digits, who: w}\n"))
    assert "waivers.yaml#/waivers/1/fingerprint: " in str(info.value)
    assert str(info.value).endswith("(quote it: YAML reads an all-digit fingerprint as a number) (line 3)")
