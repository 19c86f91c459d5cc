"""Exit codes, one meaning each, so a CI gate can tell a finding from a broken setup."""

CONFORMS = 0  # the run found nothing at or above the --fail-on level
FINDINGS = 1  # non-conforming: findings at or above the --fail-on level (or breaking changes, for diff)
USAGE = 2  # the run could not be judged: bad arguments, unknown package@version, missing file, broken contract
INTERNAL = 3  # wirecheck itself failed (a bug, never a verdict): reported in one line, the traceback on request
# The run was judged, and the captures do not show conformance: no message was of a kind of the release (the
# wrong file or the wrong release), or fewer of its kinds were exercised than --min-coverage asks. Not 1: nothing
# is known to be wrong with the implementation; not 2: the arguments were usable. A gate fails on it all the same.
INCONCLUSIVE = 4
