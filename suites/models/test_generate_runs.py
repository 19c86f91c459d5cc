"""`nox -s models` runs datamodel-code-generator as wirecheck runs every program (wirecheck.programs): its own
process group and session, reaped, a timeout, a scratch HOME. A fake generator module on PYTHONPATH (tests'
`fake_programs`) records what it saw."""

from __future__ import annotations

import pytest

from wirecheck.models import generate

# `python -m datamodel_code_generator --input SCHEMAS --output OUT ...`: one module written
GENERATOR = '''
out = sys.argv[sys.argv.index("--output") + 1]
os.makedirs(out)
open(os.path.join(out, "models.py"), "w").write("class Hello:\\n    pass\\n")
'''


def test_the_generator_runs_as_every_program(fake_programs, demo):
    fake_programs.module("datamodel_code_generator", GENERATOR)
    files = generate.generate_release(demo)
    assert files["models.py"] == generate.GENERATED_HEADER + "class Hello:\n    pass\n"
    [facts] = fake_programs.runs("datamodel_code_generator")
    fake_programs.assert_standard(facts)
    assert facts["argv"][0] == "--input" and facts["argv"][4:] == generate.GENERATOR_OPTIONS


def test_the_generator_past_its_timeout_is_stopped_with_what_it_started(fake_programs, demo, monkeypatch):
    monkeypatch.setattr(generate, "GENERATOR_SECONDS", 3.0)
    fake_programs.module("datamodel_code_generator", GENERATOR)
    fake_programs.hang()
    with pytest.raises(RuntimeError, match=r"^datamodel-codegen for demo@1\.0\.0 did not finish within 3 s"):
        generate.generate_release(demo)
    fake_programs.assert_hung_and_ended()


def test_a_failing_generator_is_quoted(fake_programs, demo):
    fake_programs.module("datamodel_code_generator", "sys.stderr.write('Invalid schema: x\\n'); sys.exit(2)")
    with pytest.raises(RuntimeError, match=r"failed \(exit 2\): Invalid schema: x$"):
        generate.generate_release(demo)
