"""A whole package: every consecutive release pair, and the transitive matrix (every earlier → every later)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from wirecheck.contracts.model import ContractRelease
from wirecheck.diff.engine import cycle_collector_paused, diff_releases
from wirecheck.diff.model import BACKWARD, BREAKING, FORWARD, SAFE, UNKNOWN, DiffFinding, DiffResult
from wirecheck.diff.options import DiffOptions
from wirecheck.diff.side import Sides

if TYPE_CHECKING:
    from wirecheck.contracts.loader import PackageRegistry  # the loader: imported by whoever built the registry


@dataclass(frozen=True)
class PackageDiff:
    package: str
    releases: tuple[str, ...]
    matrix: dict[tuple[str, str], DiffResult]  # (older, newer) → diff, for every older < newer

    @property
    def steps(self) -> list[tuple[str, str]]:
        """Each release with the next one."""
        return list(zip(self.releases, self.releases[1:], strict=False))

    @property
    def consecutive(self) -> list[DiffResult]:
        return [self.matrix[step] for step in self.steps]

    def transitive(self, direction: str, view: str) -> str:
        """FORWARD_TRANSITIVE / BACKWARD_TRANSITIVE over all releases: the worst verdict of every pair."""
        return _worst(r.compatibility(direction, view) for r in self.matrix.values())

    def gate_pairs(self, fails: Callable[[DiffFinding], bool]) -> list[DiffResult]:
        """The consecutive pairs, then each longer jump with a finding that fails the gate (`fails`:
        diff.gate.fails with the run's options) that no consecutive pair fails with (by fingerprint): a break that
        shows only across releases, such as a type changed through a removal and a re-adding that each break
        nobody the gate protects."""
        consecutive, steps = self.consecutive, self.steps
        shown = {f.fingerprint for r in consecutive for f in r.findings if fails(f)}
        return consecutive + [
            result for pair, result in self.matrix.items()
            if pair not in steps and any(fails(f) and f.fingerprint not in shown for f in result.findings)
        ]

    def is_jump(self, result: DiffResult) -> bool:
        """Whether `result` is one of this package's pairs that skips a release."""
        pair = (result.old_version, result.new_version)
        return result.package == self.package and pair in self.matrix and pair not in self.steps

    def full(self, view: str, transitive: bool = False) -> str:
        pairs = list(self.matrix.values()) if transitive else self.consecutive
        return _worst(r.compatibility(d, view) for r in pairs for d in (FORWARD, BACKWARD))


def _worst(verdicts) -> str:
    found = set(verdicts)
    return BREAKING if BREAKING in found else UNKNOWN if UNKNOWN in found else SAFE


def diff_package(registry: PackageRegistry, package: str, options: DiffOptions | None = None,
                 transitive: bool = True) -> PackageDiff:
    releases = registry.packages[package].releases
    return diff_matrix(package, [registry.load(f"{package}@{version}") for version in releases], options, transitive)


def diff_matrix(package: str, releases: list[ContractRelease], options: DiffOptions | None = None,
                transitive: bool = True) -> PackageDiff:
    """Every earlier → later pair of `releases` (in release order), or the consecutive ones only. Each release's
    side of the diff (validators, canonical forms, flattened nodes) is built once and shared by all its pairs."""
    sides = Sides()
    matrix = {}
    with cycle_collector_paused():
        for i, older in enumerate(releases):
            for newer in releases[i + 1:] if transitive else releases[i + 1:i + 2]:
                matrix[(older.version, newer.version)] = diff_releases(older, newer, options, sides)
    return PackageDiff(package, tuple(r.version for r in releases), matrix)
