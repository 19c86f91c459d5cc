"""wirecheck as people install it: the sdist is built from the checkout, the wheel from the sdist, and the wheel is
installed into a fresh virtualenv outside the checkout. From there, in an empty folder, every `sh` block of the README
runs as written; the pytest plugin gates the sample adapter (the workflow example's steps); both pre-commit hooks run
through pre-commit itself; the GitHub Action's steps run with the GitHub variables faked; a contract pack installed
beside it is listed. Run once by `nox -s tests` (marker `installed`): the fresh environments come from PyPI."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.installed

ROOT = Path(__file__).resolve().parents[1]
JUNK = shutil.ignore_patterns(".git", ".nox", ".venv", "reports", "build", "dist", "*.egg-info", "__pycache__",
                              ".hypothesis", ".pytest_cache", ".mypy_cache", ".ruff_cache")


def run(argv, **kwargs) -> subprocess.CompletedProcess[str]:
    kwargs.setdefault("timeout", 900)
    result = subprocess.run([str(a) for a in argv], capture_output=True, text=True, **kwargs)
    assert result.returncode == 0, f"{argv}: exit {result.returncode}\n{result.stdout}\n{result.stderr}"
    return result


class Installed:
    def __init__(self, work: Path):
        self.work = work
        self.source = work / "source"  # the checkout as committed to git: what pre-commit and the Action see
        self.dist = work / "dist"
        self.venv = work / "venv"
        self.empty = work / "empty"

    @property
    def bin(self) -> Path:
        return self.venv / "bin"

    @property
    def wheel(self) -> Path:
        return next(self.dist.glob("*.whl"))

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of someone who activated the fresh virtualenv: nothing of the test run's."""
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("PYTEST_", "HYPOTHESIS", "WIRECHECK_", "NOX_", "PIP_REQUIRE"))
               and k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
        env.update(PATH=f"{self.bin}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(self.venv), **extra)
        return env

    def shell(self, line: str, cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", "-c", line], cwd=cwd, env=self.env(**extra), capture_output=True, text=True,
                              timeout=600)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    it = Installed(tmp_path_factory.mktemp("installed"))
    shutil.copytree(ROOT, it.source, ignore=JUNK)
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t", "-c", "commit.gpgsign=false", "-C", it.source]
    run(["git", "init", "-q", it.source])
    run([*git, "add", "-A"])
    run([*git, "commit", "-qm", "wirecheck under test"])
    # sdist from the checkout, the wheel from the sdist (python -m build does both): the sdist must be enough
    run([sys.executable, "-m", "build", "--no-isolation", "--outdir", it.dist, it.source])
    run([sys.executable, "-m", "venv", it.venv])
    run([it.bin / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", it.wheel, "pytest",
         it.source / "fixtures" / "contract-pack"], cwd=it.work, env=it.env())
    it.empty.mkdir()
    return it


def source_files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"}


def test_the_wheel_and_the_sdist_carry_the_package_and_every_contract(installed):
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    expected = {f"wirecheck/{f}" for f in source_files(installed.source / "tools" / "wirecheck")}
    expected |= {f"wirecheck/_contracts/{f}" for f in source_files(installed.source / "contracts")}
    assert not expected - names, sorted(expected - names)[:20]
    (sdist,) = installed.dist.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        members = {m.name.split("/", 1)[1] for m in archive.getmembers() if "/" in m.name}
    assert {"contracts/registry.yaml", "setup.py", "pyproject.toml"} <= members


def readme_blocks() -> list[tuple[bool, list[str]]]:
    """(run in a checkout?, command lines) of every ```sh block of the README."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = []
    for body in re.findall(r"^```sh\n(.*?)^```", text, re.M | re.S):
        lines = body.splitlines()
        in_checkout = bool(lines) and lines[0].strip() == "# in a checkout of wirecheck"
        blocks.append((in_checkout, [line for line in lines if line.strip() and not line.startswith("#")]))
    return blocks


def test_every_readme_command_works_as_written(installed):
    ran = []
    for in_checkout, lines in readme_blocks():
        for line in lines:
            if re.match(r"(pipx run|uvx) nox ", line):
                continue  # the checkout's developer commands: CI runs the test one itself (.ci/run)
            result = installed.shell(line, installed.source if in_checkout else installed.empty)
            said = result.stdout + result.stderr
            expected = ({1} if "FAILS" in line else {0} if "CONFORMS" in line else {4} if "INCOMPLETE" in line
                        else {0, 1})
            assert result.returncode in expected, f"{line}\nexit {result.returncode}\n{said[-3000:]}"
            assert "Traceback" not in said and "internal error" not in said, line
            ran.append(line)
    assert len(ran) >= 15
    reports = installed.empty / "reports"
    assert (reports / "result.json").is_file() and (reports / "diff.sarif").is_file()
    assert (reports / "certification" / "certification.html").is_file()
    assert not (installed.empty / "contracts").exists()  # nothing needed a contracts folder where it ran


def test_the_readme_main_job_succeeds_on_a_clean_clone_and_its_reports_state_the_gate(installed):
    """The README's lead command (`pipx run nox -s diff-versions`) in the clean clone exits 0 once the reports are
    written, while every report and the last line printed still state the gate's real verdict: bundled pairs break
    protected consumers, so `--fail-on breaking` says fail, the code `python -m wirecheck.diff.versions` exits
    with."""
    line = next(line for _, lines in readme_blocks() for line in lines if "nox -s diff-versions" in line)
    command = line.split("#", 1)[0].strip()
    if shutil.which("pipx") is None:  # CI has it (.ci/run); elsewhere the same nox, from the fresh virtualenv
        run([installed.bin / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "nox"],
            env=installed.env())
        command = command.replace("pipx run nox", "nox")
    result = subprocess.run(["bash", "-c", command], cwd=installed.source, env=installed.env(), capture_output=True,
                            text=True, timeout=1800)
    said = result.stdout + result.stderr
    assert result.returncode == 0, f"{command}: exit {result.returncode}\n{said[-3000:]}"
    reports = installed.source / "reports" / "diff"
    data = json.loads((reports / "diff.json").read_text(encoding="utf-8"))
    gate = data["summary"]["gate"]
    assert (gate["fail_on"], gate["verdict"], data["summary"]["exit_code"]) == ("breaking", "fail", 1)
    assert "Gate `--fail-on breaking`: **fail**" in (reports / "index.md").read_text(encoding="utf-8")
    # printed, not only written: the same decision, its reasons counted in changes as the human reports count them
    assert f"gate --fail-on breaking: fail ({gate['line'].split(' (', 1)[1].split(';')[0]};" in said
    gated = subprocess.run([installed.bin / "python", "-m", "wirecheck.diff.versions", "--no-witnesses", "--out",
                            installed.work / "gated"], cwd=installed.source, env=installed.env(),
                           capture_output=True, text=True, timeout=1800)
    assert gated.returncode == 1, gated.stderr[-3000:]  # the module itself is the gate


def test_contracts_come_from_the_wheel_and_the_installed_pack(installed):
    """The pack is data: no command imports it (its __init__.py leaves ACME_PACK_IMPORTED and raises: issue 41, 5)."""
    marker = installed.work / "pack-imported"
    listed = installed.shell("wirecheck contracts", installed.empty, ACME_PACK_IMPORTED=str(marker))
    assert listed.returncode == 0, listed.stderr
    assert "acme-agent [pack acme-wirecheck-contracts 1.0.0]" in listed.stdout and "xopc" in listed.stdout
    where = installed.shell("python -c 'import wirecheck.contracts.loader as l; print(l.bundled_contracts_dir())'",
                            installed.empty)
    assert Path(where.stdout.strip()).is_relative_to(installed.venv), where.stdout + where.stderr
    pack = installed.source / "fixtures" / "contract-pack" / "captures"
    good = installed.shell(f"wirecheck validate acme-agent@1.0.0 {pack / 'valid.jsonl'}", installed.empty,
                           ACME_PACK_IMPORTED=str(marker))
    assert good.returncode == 0, good.stdout
    assert installed.shell(f"wirecheck validate acme-agent@1.0.0 {pack / 'invalid.jsonl'}",
                           installed.empty, ACME_PACK_IMPORTED=str(marker)).returncode == 1
    assert not marker.exists(), "a command imported the pack"


@pytest.mark.parametrize("broken", [False, True])
def test_the_workflow_example_gates_the_sample_adapter_through_the_plugin(installed, tmp_path, broken):
    """The workflow example's `run:` steps, with wirecheck and its pytest plugin from the wheel."""
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "wirecheck-gate.yml.example").read_text())
    steps = [s for s in workflow["jobs"]["conformance"]["steps"] if "run" in s and s.get("id") != "install"]
    repo = shutil.copytree(ROOT / "suites" / "plugin" / "sample_adapter", tmp_path / "adapter",
                           ignore=shutil.ignore_patterns("__pycache__", "out", "reports"))
    extra = dict(WIRECHECK_CONTRACT="xopc@0.0.253", WIRECHECK_ROLE="runtime", WIRECHECK_CAPTURE="out/run.jsonl",
                 GITHUB_STEP_SUMMARY=str(tmp_path / "summary.md"))
    if broken:
        extra["WIRECHECK_SAMPLE_BROKEN"] = "1"
    codes = []
    for step in steps:
        env = installed.env(**extra)
        result = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=repo, env=env, capture_output=True, text=True,
                                timeout=300)
        codes.append(result.returncode)
        assert "Traceback" not in result.stdout + result.stderr
    assert codes == ([1, 1] if broken else [0, 0])
    assert (repo / "reports" / "certification" / "badge.svg").is_file()
    assert "certif" in (tmp_path / "summary.md").read_text().lower()


def test_both_pre_commit_hooks_through_pre_commit(installed, tmp_path):
    """pre-commit installs wirecheck from the repository (as its users' pre-commit does) and runs the hooks, with
    their own defaults, in an adapter repository that has a package.json and a tsconfig.json."""
    sha = run(["git", "-C", installed.source, "rev-parse", "HEAD"]).stdout.strip()
    repo = tmp_path / "project"
    shutil.copytree(ROOT / "suites" / "data" / "contracts", repo / "contracts")
    xopc = ROOT / "fixtures" / "xopc" / "0.0.253"
    (repo / "captures").mkdir()
    shutil.copy(xopc / "valid" / "worker-run.jsonl", repo / "captures" / "good.jsonl")
    # a JavaScript adapter's own JSON files: the validate hook's default `files:` must leave them alone
    (repo / "package.json").write_text('{"name": "adapter", "version": "1.0.0"}\n')
    (repo / "tsconfig.json").write_text('{"compilerOptions": {"strict": true}}\n')
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump({"repos": [{
        "repo": str(installed.source), "rev": sha,
        "hooks": [{"id": "wirecheck-validate", "args": ["xopc@0.0.253"]}, {"id": "wirecheck-diff-contracts"}]}]}))
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t", "-c", "commit.gpgsign=false", "-C", repo]
    run(["git", "init", "-q", repo])
    run([*git, "add", "-A"])
    run([*git, "commit", "-qm", "start"])
    home = tmp_path / "pre-commit-home"

    def pre_commit() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"],
                              cwd=repo, env=installed.env(PRE_COMMIT_HOME=str(home)), capture_output=True,
                              text=True, timeout=900)

    clean = pre_commit()
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert re.search(r"wirecheck validate.*Passed", clean.stdout) and re.search(r"wirecheck diff.*Passed", clean.stdout)
    shutil.copy(xopc / "invalid" / "broken-run.jsonl", repo / "captures" / "bad.jsonl")
    schema = repo / "contracts" / "demo" / "1.0.0" / "stream.json"
    schema.write_text(schema.read_text().replace('"required": ["type", "version"]',
                                                 '"required": ["type", "version", "features"]', 1))
    run([*git, "add", "captures"])  # the capture is staged; the contract change stays in the working tree
    dirty = pre_commit()
    assert dirty.returncode == 1
    assert re.search(r"wirecheck validate.*Failed", dirty.stdout) and "bad.jsonl:" in dirty.stdout
    assert re.search(r"wirecheck diff.*Failed", dirty.stdout) and "demo 1.0.0 (HEAD) → 1.0.0: breaking" in dirty.stdout
    assert "change with no version bump" in dirty.stdout


# --- the GitHub Action (action.yml): its `run:` steps as the runner would run them ---------------------------------

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


class FakeRunner:
    """Runs a composite action's `run:` steps with bash, as GitHub does: inputs (with their defaults) and step outputs
    substituted into `env:` and `if:`, GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files, `uses:` steps skipped."""

    def __init__(self, installed: Installed, workdir: Path, inputs: dict[str, str]):
        self.action = yaml.safe_load((installed.source / "action.yml").read_text())
        self.installed, self.workdir = installed, workdir
        self.inputs = {name: str(spec.get("default", "")) for name, spec in self.action["inputs"].items()}
        unknown = set(inputs) - set(self.inputs)
        assert not unknown, f"not inputs of the action: {unknown}"
        self.inputs.update(inputs)
        self.outputs: dict[str, dict[str, str]] = {}
        self.summary = workdir / "summary.md"
        self.summary.write_text("")

    def value(self, expression: str) -> str:
        scope, _, name = expression.partition(".")
        if scope == "inputs":
            return self.inputs[name]
        if scope == "github" and name == "action_path":
            return str(self.installed.source)
        if scope == "steps":
            step, _, output = name.partition(".outputs.")
            return self.outputs.get(step, {}).get(output, "")
        raise AssertionError(f"expression the fake runner does not know: {expression}")

    def substitute(self, text: str) -> str:
        return EXPRESSION.sub(lambda m: self.value(m.group(1)), text)

    def condition(self, step: dict) -> bool:
        """A step's `if:` — the action's are `a == 'b' && c != ''` over inputs and step outputs."""
        expression = EXPRESSION.sub(lambda m: m.group(1), str(step.get("if", "true"))).strip()
        if expression == "true":
            return True
        verdict = True
        for term in expression.split("&&"):
            match = re.fullmatch(r"\s*([\w.-]+)\s*(==|!=)\s*'([^']*)'\s*", term)
            assert match, f"a condition the fake runner does not know: {expression}"
            left, op, right = match.groups()
            verdict = verdict and ((self.value(left) == right) == (op == "=="))
        return verdict

    def run(self) -> list[tuple[str, int, str]]:
        ran = []
        for step in self.action["runs"]["steps"]:
            if "uses" in step:
                if step["uses"].startswith("github/codeql-action/upload-sarif@") and self.condition(step):
                    # the upload step as GitHub runs it: it fails on a SARIF file that is not there
                    sarif = self.workdir / self.substitute(step["with"]["sarif_file"])
                    ran.append((step["name"], 0 if sarif.is_file() else 1, f"{sarif}: uploaded or missing"))
                    if not sarif.is_file():
                        break
                continue
            output_file = self.workdir / f"output-{len(ran)}"
            output_file.write_text("")
            env = self.installed.env(GITHUB_OUTPUT=str(output_file), GITHUB_STEP_SUMMARY=str(self.summary),
                                     GITHUB_ACTION_PATH=str(self.installed.source),
                                     **{k: self.substitute(str(v)) for k, v in step.get("env", {}).items()})
            result = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=self.workdir, env=env,
                                    capture_output=True, text=True, timeout=600)
            ran.append((step["name"], result.returncode, result.stdout + result.stderr))
            if "id" in step:
                self.outputs[step["id"]] = dict(line.split("=", 1) for line in output_file.read_text().splitlines())
            if result.returncode != 0:
                break
        return ran



def adapter_repo(path: Path) -> Path:
    """A throwaway JavaScript adapter repository: package.json and tsconfig.json beside its captures."""
    path.mkdir()
    (path / "package.json").write_text('{"name": "adapter", "version": "1.0.0"}\n')
    (path / "tsconfig.json").write_text('{"compilerOptions": {"strict": true}}\n')
    return path


UPLOADED = ("Upload SARIF to code scanning", 0)


def test_the_action_validates_captures_into_the_summary_and_sarif(installed, tmp_path):
    xopc = installed.source / "fixtures" / "xopc" / "0.0.253"
    good = FakeRunner(installed, adapter_repo(tmp_path / "good"), {
        "command": "validate", "release": "xopc@0.0.253", "captures": f"{xopc}/valid/*.jsonl",
        "install": str(installed.wheel)})
    ran = good.run()
    assert [(name, code) for name, code, _ in ran] == [("Install wirecheck", 0), ("Run wirecheck", 0), UPLOADED,
                                                       ("Verdict", 0)], ran
    assert good.outputs["run"]["exit-code"] == "0"
    assert "conforms" in good.summary.read_text().lower()
    sarif = json.loads((tmp_path / "good" / good.outputs["run"]["sarif"]).read_text())
    # nothing at error or warning level (a note may say how a reader reads a BOM: valid/lease-response-bom.jsonl)
    assert [r for r in sarif["runs"][0]["results"] if r["level"] in ("error", "warning")] == []
    assert (tmp_path / "good" / "reports" / "wirecheck" / "report.json").is_file()

    bad = FakeRunner(installed, adapter_repo(tmp_path / "bad"), {
        "command": "validate", "release": "xopc@0.0.253", "captures": f"{xopc}/invalid/broken-run.jsonl",
        "formats": "sarif", "install": str(installed.wheel)})
    ran = bad.run()
    assert [(name, code) for name, code, _ in ran] == [("Install wirecheck", 0), ("Run wirecheck", 0), UPLOADED,
                                                       ("Verdict", 1)]
    assert "::error title=wirecheck::findings" in ran[-1][2]
    assert "broken-run.jsonl" in bad.summary.read_text()
    results = json.loads((tmp_path / "bad" / bad.outputs["run"]["sarif"]).read_text())["runs"][0]["results"]
    assert results and all(r["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1 for r in results
                           if "region" in r["locations"][0]["physicalLocation"])

    # a usage error (a release that does not exist) writes no SARIF: the upload step must not run on a missing
    # file, so the verdict step is the one that fails, saying why
    for command, release in (("validate", "nope@1.0.0"), ("diff", "nope@1.0.0 nope@2.0.0")):
        wrong = FakeRunner(installed, adapter_repo(tmp_path / f"usage-{command}"), {
            "command": command, "release": release, "captures": f"{xopc}/valid/*.jsonl",
            "install": str(installed.wheel)})
        ran = wrong.run()
        assert [(name, code) for name, code, _ in ran] == [("Install wirecheck", 0), ("Run wirecheck", 0),
                                                           ("Verdict", 2)], ran
        assert wrong.outputs["run"]["sarif"] == "" and "usage or contract error" in ran[-1][2]


def test_the_action_diffs_and_certifies(installed, tmp_path):
    (tmp_path / "diff").mkdir()
    diff = FakeRunner(installed, tmp_path / "diff", {"command": "diff", "release": "xopc@0.0.251 xopc@0.0.253",
                                                      "fail-on": "never", "install": str(installed.wheel)})
    ran = diff.run()
    assert [code for _, code, _ in ran] == [0, 0, 0, 0], ran
    assert "xopc" in diff.summary.read_text()
    assert json.loads((tmp_path / "diff" / diff.outputs["run"]["sarif"]).read_text())["runs"][0]["results"]

    (tmp_path / "certify").mkdir()
    capture = installed.source / "fixtures" / "xopc" / "0.0.253" / "valid" / "worker-run.har"
    certify = FakeRunner(installed, tmp_path / "certify", {"command": "certify", "release": "xopc@0.0.253",
                                                            "captures": str(capture), "role": "runtime",
                                                            "install": str(installed.wheel)})
    ran = certify.run()
    assert ran[1][1] == 0 and certify.outputs["run"]["sarif"] == ""
    assert (tmp_path / "certify" / "reports" / "wirecheck" / "certification.html").is_file()
    assert certify.summary.read_text().strip()

    (tmp_path / "typo").mkdir()
    typo = FakeRunner(installed, tmp_path / "typo", {"command": "valdiate", "install": str(installed.wheel)})
    ran = typo.run()
    assert ran[-1][0] == "Verdict" and ran[-1][1] == 2


# --- every install, hook and Action line of the docs, and the npm adapter example (issue 42, 2 and 3) -------------

# what a reader fills in (README, "Certification, live runs and the CI gate"): wirecheck is on no index, has no tags
PLACEHOLDERS = {"<owner>", "<commit>", "<wirecheck-url>"}
STALE = re.compile(r"OWNER|@v\d\b|rev: v\d|<where you host|<tag>|pip install 'wirecheck\[")
INSTALL_LINE = re.compile(r"\bpip3? install\b|\bpip wheel\b|\bpipx (run|install)\b|\buvx\b|^\s*#?\s*-?\s*(repo|rev):"
                          r"|\buses:\s*\S*wirecheck|git\+")
EXAMPLE = ROOT / "examples" / "npm-adapter"
# lines that install what runs wirecheck's own development, not wirecheck: CI runs them itself (.ci/run)
DEVELOPER_LINES = ("pipx run nox", "uvx nox", "python3 -m pip install --user pipx")


def doc_files() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", ROOT / "action.yml", ROOT / ".pre-commit-hooks.yaml",
             *sorted((ROOT / ".github" / "workflows").iterdir()), *sorted((ROOT / "tools").rglob("README.md"))]
    files += sorted(p for p in EXAMPLE.rglob("*") if p.is_file())
    return files


def install_lines() -> list[tuple[str, int, str]]:
    """(file, line number, text) of every line of the docs that installs wirecheck or points at it: pip, pipx, uvx,
    a pre-commit `repo:` / `rev:`, an Action's `uses:`."""
    found = []
    for path in doc_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if INSTALL_LINE.search(line):
                found.append((path.relative_to(ROOT).as_posix(), number, line))
    return found


def filled(text: str, installed: Installed, sha: str) -> str:
    # a file URL with a host: a pip as old as Debian 12's (23.0.1) refuses `git+file:///...` (no host)
    url = "file://localhost" + installed.source.as_posix()
    return (text.replace("<wirecheck-url>", url).replace("<commit>", sha)
            .replace("<owner>/wirecheck", "local/wirecheck"))


def source_sha(installed: Installed) -> str:
    return run(["git", "-C", installed.source, "rev-parse", "HEAD"]).stdout.strip()


def pre_commit_snippets() -> list[tuple[str, str]]:
    """(file, YAML) of every pre-commit configuration the docs show: a ```yaml block or a commented one (the
    .pre-commit-hooks.yaml header) holding `repo:`, or an example's .pre-commit-config.yaml."""
    found = [(".pre-commit-hooks.yaml", "\n".join(line[2:] for line in
                                                   (ROOT / ".pre-commit-hooks.yaml").read_text().splitlines()
                                                   if line.startswith("#   ") or line.startswith("#     ")))]
    for path in doc_files():
        if path.suffix == ".md":
            found += [(path.relative_to(ROOT).as_posix(), body) for body in
                      re.findall(r"^```yaml\n(.*?)^```", path.read_text(encoding="utf-8"), re.M | re.S)
                      if "repo:" in body]
        elif path.name == ".pre-commit-config.yaml":
            found.append((path.relative_to(ROOT).as_posix(), path.read_text()))
    return found


def test_every_install_hook_and_action_line_of_the_docs_works_as_written(installed, tmp_path):
    """Issue 42, 2: `pip install 'wirecheck[dask]'` (no index has it), `rev: v0.1.0` (no tags), `OWNER/wirecheck`
    could not work. Every such line of the docs is found here (a new one cannot escape), holds only the
    placeholders the README explains, and runs as written with them filled in from a clone of this repository:
    pip lines in a fresh virtualenv beside a clone named `wirecheck` and a `dist/` holding the wheel, pre-commit
    configurations through pre-commit, Action lines by the npm example's test (test_the_npm_adapter_example...)."""
    lines = install_lines()
    assert len(lines) >= 12, lines
    for file, number, text in lines:
        assert not STALE.search(text), f"{file}:{number}: {text}"
        said = re.split(r"\s+# ", text)[0]  # a comment may name other things (`dist/wirecheck-<version>-*.whl`)
        assert set(re.findall(r"<[a-z-]+>", said)) <= PLACEHOLDERS, f"{file}:{number}: {text}"
    sha = source_sha(installed)
    ran: set[tuple[str, int]] = set()
    # pip lines, in the folder the README's tour starts in: a clone named wirecheck, the wheel in dist/
    work = tmp_path / "user"
    work.mkdir()
    run(["git", "clone", "-q", installed.source, work / "wirecheck"])
    shutil.copytree(installed.dist, work / "dist")
    adapter = shutil.copytree(ROOT / "suites" / "plugin" / "sample_adapter", tmp_path / "adapter",
                              ignore=shutil.ignore_patterns("__pycache__", "out", "reports"))
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", venv])
    env = {**installed.env(), "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
           "VIRTUAL_ENV": str(venv)}
    for file, number, text in lines:
        if file == "action.yml" and "WIRECHECK_INSTALL" in text:  # the Action's own step: run by its tests above
            ran.add((file, number))
            continue
        command = text.strip().lstrip("-").strip()
        command = re.sub(r"^run:\s*", "", command)
        if not re.match(r"(python3 -m )?pip3? (install|wheel)\b", command) or command.startswith(DEVELOPER_LINES):
            continue
        command = re.split(r"\s+# ", filled(command, installed, sha))[0]
        where = adapter if "-e ." in command else work
        done = subprocess.run(["bash", "-c", command], cwd=where, env=env, capture_output=True, text=True,
                              timeout=900)
        assert done.returncode == 0, f"{file}:{number}: {command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        ran.add((file, number))
    checked = subprocess.run([venv / "bin" / "python", "-c", "import dask, distributed, fsspec, wirecheck"],
                             env=env, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr  # the extra really came
    # the --dask error's own line (check/fleet.py) installs the extra's requirements as written
    line = subprocess.run([venv / "bin" / "python", "-c", "from wirecheck.check.fleet import extra_install_line as e;"
                           " print(e())"], env=env, capture_output=True, text=True, check=True).stdout.strip()
    assert line.startswith("pip install 'dask[distributed]") and subprocess.run(
        ["bash", "-c", line], env=env, capture_output=True, timeout=900).returncode == 0
    # pre-commit configurations: each one the docs show, filled in, in a throwaway repository with a capture
    snippets = pre_commit_snippets()
    assert len(snippets) >= 3, snippets
    home = tmp_path / "pre-commit-home"  # one cache: the hooks' environment is built once for the repo and rev
    for file, snippet in snippets:
        config = yaml.safe_load(filled(snippet, installed, sha))
        config = {"repos": config} if isinstance(config, list) else config
        repo = tmp_path / f"precommit-{len(ran)}"
        (repo / "captures").mkdir(parents=True)
        shutil.copy(ROOT / "examples" / "npm-adapter" / "captures" / "claude-result.json",
                    repo / "captures" / "claude-result.json")
        shutil.copytree(ROOT / "suites" / "data" / "contracts", repo / "contracts")
        (repo / "package.json").write_text('{"name": "adapter", "version": "1.0.0"}\n')
        for hook in config["repos"][0]["hooks"]:  # the release of the capture this repository holds
            if hook["id"] == "wirecheck-validate":
                hook["args"] = ["claude-code-print@2.1.218"]
                hook.pop("files", None)
        (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
        git = ["git", "-c", "user.email=t@t", "-c", "user.name=t", "-c", "commit.gpgsign=false", "-C", repo]
        run(["git", "init", "-q", repo])
        run([*git, "add", "-A"])
        run([*git, "commit", "-qm", "start"])
        done = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"],
                              cwd=repo, env=installed.env(PRE_COMMIT_HOME=str(home)), capture_output=True, text=True,
                              timeout=900)
        assert done.returncode == 0 and "Passed" in done.stdout, f"{file}\n{done.stdout}\n{done.stderr}"
        for number in [n for f, n, t in lines if f == file and re.search(r"\b(repo|rev):", t)]:
            ran.add((file, number))
    # Action lines: the one form, run by the npm example's test from a clone at the commit
    for file, number, text in lines:
        if re.search(r"uses:\s*\S*wirecheck", text):
            assert re.search(r"uses: <owner>/wirecheck@<commit>", text), f"{file}:{number}: {text}"
            ran.add((file, number))
    # the rest are the checkout's developer commands, which CI runs itself
    left = [(f, n, t) for f, n, t in lines if (f, n) not in ran and not any(d in t for d in DEVELOPER_LINES)]
    assert not left, left


def _example_repo(installed: Installed, tmp_path: Path) -> tuple[Path, str]:
    """examples/npm-adapter as a throwaway npm repository of its own (git, package.json), placeholders filled."""
    repo = shutil.copytree(EXAMPLE, tmp_path / "npm-adapter")
    sha = source_sha(installed)
    config = repo / ".pre-commit-config.yaml"
    config.write_text(filled(config.read_text(), installed, sha))
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t", "-c", "commit.gpgsign=false", "-C", repo]
    run(["git", "init", "-q", repo])
    run([*git, "add", "-A"])
    run([*git, "commit", "-qm", "adapter"])
    return repo, sha


def _workflow_steps(repo: Path, installed: Installed, summary: Path) -> list[tuple[str, int, str]]:
    """The example workflow's steps as the runner runs them: `actions/*` are the machine's own (node, python, the
    checkout is the repository), `run:` steps with bash -e, the wirecheck Action from this repository's clone at
    the commit (FakeRunner over its action.yml, installing the built wheel)."""
    workflow = yaml.safe_load((repo / ".github" / "workflows" / "wirecheck.yml").read_text())
    ran = []
    for step in workflow["jobs"]["wirecheck"]["steps"]:
        uses = step.get("uses", "")
        if uses.startswith("actions/"):
            continue
        if uses:
            assert uses == "<owner>/wirecheck@<commit>", uses
            action = FakeRunner(installed, repo, {**{k: str(v) for k, v in step["with"].items()},
                                                  "install": str(installed.wheel)})
            action.summary = summary
            steps = action.run()
            code = max((c for _, c, _ in steps), default=0)
            ran.append((step["name"], code, "\n".join(out for _, _, out in steps)))
            continue
        done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=repo, env=installed.env(), capture_output=True,
                              text=True, timeout=900)
        ran.append((step["name"], done.returncode, done.stdout + done.stderr))
    return ran


@pytest.mark.skipif(shutil.which("node") is None or shutil.which("npm") is None, reason="needs Node.js and npm")
def test_the_npm_adapter_example_runs_as_written_and_fails_a_broken_adapter(installed, tmp_path):
    """Issue 42, 3: a JavaScript adapter's repository (package.json, no Python of its own): `npm test`, its captures
    validated by the Action, the adapter fuzzed as the reader (fuzz-consumer), and the pre-commit hook at a commit
    of this repository, all from the wheel. A broken adapter (one that refuses successful runs) fails the fuzz."""
    repo, _ = _example_repo(installed, tmp_path)
    summary = tmp_path / "summary.md"
    summary.write_text("")
    ran = _workflow_steps(repo, installed, summary)
    assert [(name, code) for name, code, _ in ran] == [
        ("Adapter tests", 0), ("Captures conform to the contract", 0),
        ("The adapter reads every message the contract allows", 0)], ran
    assert "conforms" in summary.read_text().lower()
    assert "AGREES WITH THE CONTRACT" in (repo / "reports" / "fuzz-consumer.md").read_text()
    hooks = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"], cwd=repo,
                           env=installed.env(PRE_COMMIT_HOME=str(tmp_path / "pc")), capture_output=True, text=True,
                           timeout=900)
    assert hooks.returncode == 0 and re.search(r"wirecheck validate.*Passed", hooks.stdout), hooks.stdout
    adapter = repo / "adapter.js"
    adapter.write_text(adapter.read_text().replace("if (value.type !== 'result') return null;",
                                                   "if (value.type !== 'result') return null;\n"
                                                   "  if (value.subtype === 'success') throw new AdapterError('no');"))
    broken = _workflow_steps(repo, installed, summary)
    assert broken[-1][1] == 1, broken[-1]  # fuzz-consumer: valid messages rejected
    assert "valid-rejected" in (repo / "reports" / "fuzz-consumer.md").read_text()


def test_the_action_diffs_the_checkouts_contracts_against_head(installed, tmp_path):
    """Issue 42, 1: `command: diff, against: HEAD` compared the installed contracts, in no checkout ("... is not
    inside a git checkout", three times). Now the checkout's contracts/; without one, the missing flag said once."""
    repo = tmp_path / "contracts-repo"
    shutil.copytree(ROOT / "suites" / "data" / "contracts", repo / "contracts")
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t", "-c", "commit.gpgsign=false", "-C", repo]
    run(["git", "init", "-q", repo])
    run([*git, "add", "-A"])
    run([*git, "commit", "-qm", "contracts"])
    inputs = {"command": "diff", "against": "HEAD", "install": str(installed.wheel)}
    same = FakeRunner(installed, repo, inputs)
    ran = same.run()
    assert [(name, code) for name, code, _ in ran] == [("Install wirecheck", 0), ("Run wirecheck", 0), UPLOADED,
                                                       ("Verdict", 0)], ran
    assert "No changes on the wire (against HEAD): demo 1.0.0." in same.summary.read_text()
    bare = tmp_path / "no-contracts"
    bare.mkdir()
    run(["git", "init", "-q", bare])
    lacking = FakeRunner(installed, bare, inputs)
    ran = lacking.run()
    assert ran[-1][:2] == ("Verdict", 2), ran
    said = ran[1][2]
    assert said.count("give --contracts FOLDER") == 1, said  # once, not once per format
