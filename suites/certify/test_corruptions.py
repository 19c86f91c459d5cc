"""The corruption corpus (fixtures/corruptions/): broken twins of real captures, each NOT CERTIFIED because of the
requirements it names, beside its source, which is not (issue 37)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from wirecheck import exitcodes
from wirecheck.certify.evaluate import CERTIFIED, FAIL, INCOMPLETE, NOT_CERTIFIED
from wirecheck.certify.pipeline import certify_captures
from wirecheck.check.engine import CheckOptions
from wirecheck.contracts import load_registry
from wirecheck.pointer import parse_pointer, replaced, resolve

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "fixtures" / "corruptions"
CASES = yaml.safe_load((CORPUS / "cases.yaml").read_text(encoding="utf-8"))["cases"]
_MISSING = object()


def read_lines(path: Path) -> list[Any]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def pick(lines: list[Any], select: dict[str, Any]) -> int:
    """The index of the frame `select` names (README.md): its sender, what its message holds, the Nth such."""
    found = [i for i, line in enumerate(lines) if isinstance(line, dict) and "message" in line
             and select.get("from", line.get("from")) == line.get("from")
             and all(resolve(line["message"], parse_pointer(p), _MISSING) == v
                     for p, v in select.get("where", {}).items())]
    nth = select.get("nth", 0)
    if len(found) <= nth:
        raise AssertionError(f"no frame {select} in the source")
    return found[nth]


def mutate(lines: list[Any], operation: dict[str, Any]) -> list[Any]:
    lines = copy.deepcopy(lines)
    process = next((i for i, line in enumerate(lines) if isinstance(line, dict) and "process" in line), None)
    (name,) = [k for k in operation if k in ("duplicate", "move", "drop", "set", "append", "process")]
    if name == "duplicate":
        at = pick(lines, operation["duplicate"])
        lines.insert(at + 1, copy.deepcopy(lines[at]))
    elif name == "move":
        frame = lines.pop(pick(lines, operation["move"]))
        lines.insert(pick(lines, operation["before"]), frame)
    elif name == "drop":
        del lines[pick(lines, operation["drop"])]
    elif name == "set":
        at = pick(lines, operation["set"])
        lines[at]["message"] = replaced(lines[at]["message"], parse_pointer(operation["pointer"]), operation["value"])
    elif name == "append":
        lines.insert(process if process is not None else len(lines), operation["append"])
    else:
        assert process is not None, "the source has no process record"
        record = lines[process]["process"]
        changes = dict(operation["process"])
        if "hang" in changes:  # still running `hang` seconds after its last line: the harness stopped it
            record.update(exit_status=None, stopped_by_harness=True, ended_by="SIGTERM", exited_at=None,
                          stopped_at=round(record["last_output_at"] + changes.pop("hang"), 3))
        if "signal" in changes:  # killed by a signal nobody sent it
            record.update(exit_status=None)
        record.update(changes)
    return lines


_IMPORTED: dict[str, Any] = {}


def registry_for(case: dict[str, Any]):
    """The bundled contracts, or (`import:`) a contracts folder made by `wirecheck import schema` from a committed
    schema, as the live tiers make it (MCP is a series of schemas wirecheck imports, not bundled)."""
    spec = case.get("import")
    if spec is None:
        return load_registry()
    if spec["schema"] not in _IMPORTED:
        import tempfile

        from typer.testing import CliRunner

        from wirecheck.cli.app import app

        out = tempfile.mkdtemp(prefix="wirecheck-corpus-")
        package, version = case["certify"]["contract"].split("@")
        args = ["import", "schema", str(ROOT / spec["schema"]), "--profile", "json-rpc", "--package", package,
                "--version", version, "-o", out]
        if "mapping" in spec:
            args += ["--mapping", str(ROOT / spec["mapping"])]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        _IMPORTED[spec["schema"]] = load_registry(out)
    return _IMPORTED[spec["schema"]]


def certify(capture: Path, case: dict[str, Any]):
    registry = registry_for(case)
    target = case["certify"]
    return certify_captures(registry.load(target["contract"]), [capture], role=target["role"],
                            fail_on=case.get("fail_on", "MUST"), load_release=registry.load,
                            options=CheckOptions(whole=case.get("whole", False)))


def test_the_corpus_is_large_and_covers_every_class():
    assert len(CASES) >= 25, len(CASES)
    assert len({c["id"] for c in CASES}) == len(CASES)
    classes = {c["class"] for c in CASES}
    assert {"order", "count", "process", "answered", "reference", "leads-to", "negotiated", "format"} <= classes


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_a_broken_twin_is_not_certified_for_its_requirements(case, tmp_path):
    if "capture" in case:
        broken = ROOT / case["capture"]
    else:
        lines = read_lines(ROOT / case["source"])
        for operation in case["mutate"]:
            lines = mutate(lines, operation)
        broken = tmp_path / Path(case["source"]).name
        broken.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    cert = certify(broken, case)
    assert (cert.verdict, cert.exit_code) == (NOT_CERTIFIED, exitcodes.FINDINGS), cert.gate_line
    # what the corruption broke: the failures its source, certified at the same gate, does not have (a SHOULD
    # gate also fails the SHOULDs a real program breaks anyway)
    before = {r.requirement.id for r in certify(ROOT / (case.get("source") or case["healthy"]), case).blocking()}
    failed = sorted(r.requirement.id for r in cert.blocking() if r.status == FAIL and r.requirement.id not in before)
    assert failed == sorted(case["fails"]), failed


@pytest.mark.parametrize("source", sorted({c.get("source") or c["healthy"] for c in CASES}))
def test_every_source_is_certified_as_it_is(source):
    """The twin fails because of its corruption: the real capture it was made from (or, for a capture a broken
    program made, the capture the same program made without the break: `healthy`) does not fail, whatever the
    contract it is certified against in the corpus."""
    for case in [c for c in CASES if source in (c.get("source"), c.get("healthy"))]:
        cert = certify(ROOT / source, {**case, "fail_on": "MUST"})
        assert cert.verdict in (CERTIFIED, INCOMPLETE), (case["id"], cert.gate_line,
                                                         [r.requirement.id for r in cert.blocking()])
