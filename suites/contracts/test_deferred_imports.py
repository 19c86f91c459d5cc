"""The format libraries python-jsonschema imports at its top execute at their first use (wirecheck/deferred_imports.py),
and python-jsonschema's format checks are the same checks, with the same verdicts, as with an eager import."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from wirecheck import deferred_imports

PROBE = r'''
import json, sys
EAGER = sys.argv[1] == "eager"
if EAGER:  # imported before wirecheck: install() leaves them as they are
    import rfc3339_validator, rfc3986_validator
import wirecheck.contracts.reference as reference
import jsonschema

def executed():  # a name each module defines as it executes
    return {name: marker in vars(sys.modules[name])
            for name, marker in (("rfc3986_validator", "URI_RE_COMP"), ("rfc3339_validator", "RFC3339_REGEX"))}

out = {"before": executed(), "six": "six" in sys.modules}
cases = json.loads(sys.argv[2])
out["verdicts"] = [reference.FORMAT_CHECKER.conforms(text, fmt) for text, fmt in cases]
out["after"] = executed()
out["checkers"] = {
    name: sorted(getattr(jsonschema, name).FORMAT_CHECKER.checkers)
    for name in ("Draft4Validator", "Draft6Validator", "Draft7Validator", "Draft201909Validator",
                 "Draft202012Validator")
}
out["ours"] = sorted(reference.FORMAT_CHECKER.checkers)
print(json.dumps(out))
'''

CASES = [
    ("https://a.test/x?y#z", "uri"), ("a b", "uri"), ("//a.test/x", "uri"), ("mailto:x@a.test", "uri"),
    ("http://[::1]:80/", "uri"), ("http://[::g]/", "uri"), ("x", "uri-reference"), ("%zz", "uri-reference"),
    ("#/$defs/a", "uri-reference"), ("2026-12-04T16:01:15Z", "date-time"), ("2026-13-04T16:01:15Z", "date-time"),
    ("2026-12-04t16:01:15.5+01:00", "date-time"), ("2026-12-04 16:01:15Z", "date-time"), ("16:01:15Z", "time"),
    ("25:01:15Z", "time"), (3, "uri"), (None, "date-time"),
]


def probe(mode: str) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, mode, json.dumps(CASES)], capture_output=True, text=True,
                          check=True, timeout=120)
    return json.loads(done.stdout)


def test_importing_the_reference_validator_executes_no_format_library_and_a_check_does():
    """The eager import coming back (python-jsonschema's `from rfc3986_validator import ...` executing the module,
    68 M instructions) fails here: after `import wirecheck.contracts.reference` neither library has executed; the
    first `uri` / `date-time` check executes it and answers as the eager import does."""
    deferred, eager = probe("deferred"), probe("eager")
    assert deferred["before"] == {"rfc3986_validator": False, "rfc3339_validator": False}
    assert not deferred["six"]  # rfc3339_validator's own import
    assert deferred["after"] == {"rfc3986_validator": True, "rfc3339_validator": True}
    assert eager["before"] == {"rfc3986_validator": True, "rfc3339_validator": True}
    assert deferred["verdicts"] == eager["verdicts"]
    assert deferred["verdicts"][:3] == [True, False, False] and deferred["verdicts"][9:11] == [True, False]
    # the same checks registered, draft by draft (a library found missing would drop `uri` or `date-time`)
    assert deferred["checkers"] == eager["checkers"] and deferred["ours"] == eager["ours"]
    assert {"uri", "uri-reference", "date-time", "time"} <= set(deferred["checkers"]["Draft202012Validator"])


@pytest.fixture
def fake_library(tmp_path, monkeypatch):
    """A format library `wc_fake_fmt` on sys.path, deferred by a finder of its own (the installed one is left
    alone); `requires` of DEFERRED as the test sets it."""
    (tmp_path / "wc_fake_fmt.py").write_text(
        "import sys\nEXECUTIONS = getattr(sys, 'wc_fake_fmt_runs', 0) + 1\nsys.wc_fake_fmt_runs = EXECUTIONS\n"
        "def check(text, rule='a'):\n    return (text, rule, EXECUTIONS)\n"
        "if getattr(sys, 'wc_fake_fmt_fail', False):\n    raise RuntimeError('broken at its top')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "wc_fake_fmt", raising=False)
    monkeypatch.setattr(sys, "wc_fake_fmt_runs", 0, raising=False)
    monkeypatch.setitem(deferred_imports.DEFERRED, "wc_fake_fmt", (("check",), ()))
    finder = deferred_imports._Finder()
    monkeypatch.setattr(sys, "meta_path", [finder, *sys.meta_path])
    return finder, tmp_path / "wc_fake_fmt.py"


def test_a_function_imported_by_name_executes_its_module_on_the_first_call(fake_library):
    from wc_fake_fmt import check

    module = sys.modules["wc_fake_fmt"]
    assert sys.wc_fake_fmt_runs == 0 and "EXECUTIONS" not in vars(module)  # type: ignore[attr-defined]
    assert check("x", rule="b") == ("x", "b", 1)
    assert check("y") == ("y", "a", 1) and module.EXECUTIONS == 1  # executed once, in the same module object
    assert module.check is not check and module.check("z") == ("z", "a", 1)  # the real function, in place
    assert type(module) is type(sys)


def test_any_other_attribute_executes_the_module(fake_library):
    import wc_fake_fmt

    assert sys.wc_fake_fmt_runs == 0  # type: ignore[attr-defined]
    assert wc_fake_fmt.EXECUTIONS == 1 and wc_fake_fmt.check("x") == ("x", "a", 1)


def test_a_missing_requirement_fails_the_import_at_once(fake_library, monkeypatch):
    """python-jsonschema registers a check only when its import succeeds (`suppress(ImportError)`): a library whose
    own import would fail is not deferred, so the failure comes where it expects it."""
    monkeypatch.setitem(deferred_imports.DEFERRED, "wc_fake_fmt", (("check",), ("wc_no_such_module",)))
    source = fake_library[1]
    source.write_text("import wc_no_such_module\n" + source.read_text())
    with pytest.raises(ModuleNotFoundError, match="wc_no_such_module"):
        from wc_fake_fmt import check  # noqa: F401
    assert "wc_fake_fmt" not in sys.modules


def test_a_module_failing_as_it_executes_fails_the_call_and_is_not_left_imported(fake_library, monkeypatch):
    monkeypatch.setattr(sys, "wc_fake_fmt_fail", True, raising=False)
    from wc_fake_fmt import check

    with pytest.raises(RuntimeError, match="broken at its top"):
        check("x")
    assert "wc_fake_fmt" not in sys.modules


def test_only_the_listed_modules_are_deferred(fake_library):
    finder = fake_library[0]
    assert finder.find_spec("json") is None and finder.find_spec("wc_other") is None
    spec = finder.find_spec("wc_fake_fmt")
    assert isinstance(spec.loader, deferred_imports._DeferredLoader)
    assert finder.find_spec("wc_fake_fmt") is None  # asked once: a second import finds the real one
