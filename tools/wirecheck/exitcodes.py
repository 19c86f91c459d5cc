"""Exit codes, one meaning each, so a CI gate can tell a finding from a broken setup."""

CONFORMS = 0  # the run found nothing at or above the --fail-on level
FINDINGS = 1  # non-conforming: findings at or above the --fail-on level (or breaking changes, for diff)
USAGE = 2  # the run could not be judged: bad arguments, unknown package@version, missing file, broken contract
INTERNAL = 3  # wirecheck itself failed (a bug, never a verdict): reported in one line, the traceback on request
# The run was judged, and the captures do not show conformance: no message was of a kind of the release (the
# wrong file or the wrong release), or fewer of its kinds were exercised than --min-coverage asks. Not 1: nothing
# is known to be wrong with the implementation; not 2: the arguments were usable. A gate fails on it all the same.
INCONCLUSIVE = 4
# A live run (certify --run, stub, probe, fuzz-consumer with a command) heard nothing from the implementation under
# test: the program exited, or stayed silent, before writing a byte (qodercli's "Not logged in"), it could not be
# started (a bad interpreter line), or the platform could not be reached (a host that does not resolve, a refused
# connection, an answer that is not HTTP). No verdict: not 1, nothing shows the implementation wrong; not 2, the
# arguments named things that exist (a program that does not exist, or a malformed URL, is 2). The reports say the
# run failed and quote what the program last wrote on stderr. A gate fails on it all the same.
RUN_FAILED = 5
# The diff could not decide a change to a member the writer's contract declares, in a direction and for a consumer
# model the run protects, and proved no break at the --fail-on level: no witness could be built and set containment
# could not say (diff/gate.py says what blocked each one). Not 1: nothing is known to break; not 0: a break may pass
# unseen (issue 39: undecided was a pass). A gate fails on it all the same; `--undecided pass` accepts it.
UNDECIDED = 6
