"""The documented CI pieces work as documented: the GitHub Actions workflow's `run:` steps gate the sample adapter,
and the pre-commit hooks validate captures and diff contracts."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from wirecheck.cli.app import app

ROOT = Path(__file__).parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "wirecheck-gate.yml.example"
HOOKS = ROOT / ".pre-commit-hooks.yaml"
XOPC = ROOT / "fixtures" / "xopc" / "0.0.253"
DEMO = ROOT / "suites" / "data" / "contracts"


def workflow_steps():
    document = yaml.safe_load(WORKFLOW.read_text())
    job = document["jobs"]["conformance"]
    return document, [s for s in job["steps"] if "run" in s and s.get("id") != "install"]


def test_workflow_is_well_formed():
    document, steps = workflow_steps()
    assert document["name"] == "wirecheck gate" and True in document  # yaml reads `on:` as True
    assert {"WIRECHECK_CONTRACT", "WIRECHECK_ROLE", "WIRECHECK_CAPTURE"} <= set(document["env"])
    assert [s["name"] for s in steps] == ["Tests, gated on conformance", "Certification report"]
    uses = [s["uses"] for s in document["jobs"]["conformance"]["steps"] if "uses" in s]
    assert any(u.startswith("actions/upload-artifact@") for u in uses)


@pytest.mark.parametrize("broken", [False, True])
def test_workflow_steps_gate_the_sample_adapter(adapter_repo, broken):
    """Run the workflow's shell steps, as Actions would (bash -e), on the sample adapter (an xopc runtime)."""
    _, steps = workflow_steps()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "HYPOTHESIS"))}
    env.update(WIRECHECK_CONTRACT="xopc@0.0.253", WIRECHECK_ROLE="runtime", WIRECHECK_CAPTURE="out/run.jsonl",
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}")
    env.pop("WIRECHECK_SAMPLE_BROKEN", None)
    if broken:
        env["WIRECHECK_SAMPLE_BROKEN"] = "1"
    codes = []
    for step in steps:
        script = step["run"].replace("pytest ", f"{shlex.quote(sys.executable)} -m pytest ", 1)
        result = subprocess.run(["bash", "-e", "-c", script], cwd=adapter_repo, env=env, capture_output=True,
                                text=True, timeout=180)
        codes.append(result.returncode)
    assert codes == ([1, 1] if broken else [0, 0])
    reports = adapter_repo / "reports"
    assert (reports / "junit.xml").is_file() and (reports / "certification" / "certification.html").is_file()
    assert (reports / "certification" / "badge.svg").is_file()


def hooks():
    return {hook["id"]: hook for hook in yaml.safe_load(HOOKS.read_text())}


def hook_argv(hook, args=(), files=()):
    argv = shlex.split(hook["entry"]) + list(args)
    if hook.get("pass_filenames", True):
        argv += [str(f) for f in files]
    assert argv[0] == "wirecheck"
    return argv[1:]


def test_hooks_are_well_formed():
    found = hooks()
    assert set(found) == {"wirecheck-validate", "wirecheck-diff-contracts"}
    for hook in found.values():
        assert hook["language"] == "python" and hook["entry"].startswith("wirecheck ")


def _staged(repo: Path, hook) -> list[Path]:
    """The files pre-commit hands the hook: the repository's files (paths relative to its top, `/` separated)
    that `files:` matches (re.search) and `exclude:` does not."""
    import re

    files = sorted(p.relative_to(repo).as_posix() for p in repo.rglob("*") if p.is_file())
    chosen = [f for f in files if re.search(hook["files"], f)
              and not (hook.get("exclude") and re.search(hook["exclude"], f))]
    return [repo / f for f in chosen]


def _adapter_repo(tmp_path: Path) -> Path:
    """A JavaScript adapter repository: its own JSON files beside its captures."""
    repo = tmp_path / "adapter"
    (repo / "src").mkdir(parents=True)
    (repo / "package.json").write_text('{"name": "adapter", "version": "1.0.0", "type": "module"}\n')
    (repo / "package-lock.json").write_text('{"name": "adapter", "lockfileVersion": 3, "packages": {}}\n')
    (repo / "tsconfig.json").write_text('{"compilerOptions": {"strict": true}}\n')
    (repo / "src" / "index.ts").write_text("export {};\n")
    (repo / "test" / "captures").mkdir(parents=True)
    for capture in sorted((XOPC / "valid").glob("*.jsonl")):
        shutil.copy(capture, repo / "test" / "captures" / capture.name)
    return repo


def test_validate_hook_passes_good_captures_and_fails_bad_ones(tmp_path):
    """With the hook's own `files:`, in a repository that also holds package.json and tsconfig.json: only the
    captures are validated (the old default, any .json, failed every JavaScript repository)."""
    hook = hooks()["wirecheck-validate"]
    repo = _adapter_repo(tmp_path)
    staged = _staged(repo, hook)
    assert staged and all(p.parent.name == "captures" for p in staged), staged
    runner = CliRunner()
    good = runner.invoke(app, hook_argv(hook, ["xopc@0.0.253"], staged))
    assert good.exit_code == 0, good.output
    shutil.copy(XOPC / "invalid" / "broken-run.jsonl", repo / "test" / "captures" / "broken-run.jsonl")
    bad = runner.invoke(app, hook_argv(hook, ["xopc@0.0.253"], _staged(repo, hook)))
    assert bad.exit_code == 1 and "broken-run.jsonl:" in bad.output


@pytest.mark.skipif(shutil.which("git") is None, reason="git is needed for --against")
def test_diff_hook_fails_on_a_breaking_contract_change(tmp_path):
    hook = hooks()["wirecheck-diff-contracts"]
    repo = tmp_path / "repo"
    shutil.copytree(DEMO, repo / "contracts")
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "-C", str(repo), "add", "."], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-qm", "contracts"], check=True)
    env = {**os.environ, "WIRECHECK_CONTRACTS": str(repo / "contracts")}

    def run_hook():  # a fresh process per run, as pre-commit does (loaded contracts are cached per process)
        return subprocess.run([sys.executable, "-m", "wirecheck", *hook_argv(hook)], cwd=repo, env=env,
                              capture_output=True, text=True, timeout=120)

    unchanged = run_hook()
    assert unchanged.returncode == 0, unchanged.stdout + unchanged.stderr
    schema = repo / "contracts" / "demo" / "1.0.0" / "stream.json"
    schema.write_text(schema.read_text().replace('"required": ["type", "version"]',
                                                 '"required": ["type", "version", "features"]', 1))
    changed = run_hook()
    assert changed.returncode == 1, changed.stdout + changed.stderr
    assert "demo 1.0.0" in changed.stdout
