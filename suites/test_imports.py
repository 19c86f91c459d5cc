"""wirecheck's modules import one another without cycles, and so do the helper modules of each test folder
(deferred imports inside functions count too: a cycle hidden behind one is still a cycle, it only moves the failure
to the first call). Each import has one direction: fuzz strategies → fuzz rules → fuzz memo; importer release →
shipped → acp, both → profile; xopc_fixtures → xopc_cases → xopc_sidechat → xopc_build."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import wirecheck

PACKAGE = Path(wirecheck.__file__).parent
SUITES = Path(__file__).parent


def _module_name(path: Path) -> str:
    parts = ("wirecheck", *path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    target = f"{node.module}.{alias.name}"
                    found.add(target if target in modules else node.module)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def import_graph() -> dict[str, set[str]]:
    return _graph({_module_name(p): p for p in PACKAGE.rglob("*.py")})


def suite_folders() -> list[Path]:
    """Test folders whose modules import one another by bare name (their conftest puts the folder on sys.path)."""
    return sorted({p.parent for p in SUITES.rglob("*.py") if "__pycache__" not in p.parts})


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for nxt in children:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        out.append(sorted(component))
    return out


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_package_has_no_import_cycles() -> None:
    graph = import_graph()
    assert "wirecheck.diff.side" in graph["wirecheck.diff.flat"]  # the graph sees imports at all
    assert "wirecheck.fuzz.rules" in graph["wirecheck.fuzz.strategies"]  # and deferred ones
    assert cycles(graph) == []


@pytest.mark.parametrize("folder", suite_folders(), ids=lambda p: str(p.relative_to(SUITES)) or "suites")
def test_a_test_folder_has_no_import_cycles(folder: Path) -> None:
    assert cycles(_graph({p.stem: p for p in folder.glob("*.py")})) == []
