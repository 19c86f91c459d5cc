"""Contract diff: which message kinds changed between two releases, whom each change breaks, and the proof.

Entry points: `diff_releases(old, new)`, `diff_schemas(old, new)`, `diff_package(registry, package)` (every
consecutive pair plus the transitive matrix). Layering: imports `pointer`, `findings`, `contracts` only.
"""

from wirecheck.diff.engine import diff_releases, diff_schemas
from wirecheck.diff.model import DiffFinding, DiffResult, KindVerdict, Witness
from wirecheck.diff.options import DiffOptions

__all__ = ["DiffFinding", "DiffOptions", "DiffResult", "KindVerdict", "Witness", "diff_releases", "diff_schemas"]
