"""JUnit XML: one test case per requirement. Failures fail (`<failure>`); a requirement not exercised at a failing
level is an `<error type="NOT_EXERCISED">` (apart from failures: it could not be judged, and leaves the run
incomplete) and skipped below it; out of scope is skipped with the scope file's reason and evidence; expected failures
are skipped with the baseline's reason; stale scope-file entries fail."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import TextIO

from wirecheck.certify.evaluate import (
    EXPECTED_FAIL,
    FAIL,
    NOT_EXERCISED,
    OUT_OF_SCOPE,
    PASS,
    STALE_SCOPE,
    UNEXPECTED_PASS,
    Certification,
)
from wirecheck.junit_xml import xml_document
from wirecheck.report.summary import finding_line


def write(cert: Certification, out: TextIO) -> None:
    failing_levels = cert.failing_levels()
    blocking = {id(r) for r in cert.blocking()}  # the gate's: a failure here is a failure of the run
    suite = ET.Element("testsuite", name=f"wirecheck certify {cert.contract}")
    failures = errors = skipped = 0
    for r in cert.results:
        req = r.requirement
        case = ET.SubElement(suite, "testcase", classname=f"{cert.contract}.{req.level}", name=req.id)
        if r.status == FAIL and id(r) in blocking:
            failures += 1
            node = ET.SubElement(case, "failure", message=f"{len(r.failures)} finding(s)", type=r.failures[0].code)
            node.text = req.text + "\n" + "\n".join(finding_line(f) for f in r.failures[:50])
        elif r.status == UNEXPECTED_PASS:
            failures += 1
            ET.SubElement(case, "failure", message="passes but is listed as an expected failure; remove it "
                                                   "from the baseline", type="STALE_BASELINE")
        elif r.status == STALE_SCOPE and r.scope is not None:
            failures += 1
            ET.SubElement(case, "failure", message=f"declared out of scope ({r.scope.reason}), yet exercised and "
                                                   "passed; remove it from the scope file", type="STALE_SCOPE")
        elif r.gap and req.level in failing_levels:
            errors += 1
            ET.SubElement(case, "error", message="not exercised by the captures, and not declared out of scope: "
                                                 "the run is incomplete", type="NOT_EXERCISED")
        elif r.status == OUT_OF_SCOPE and r.scope is not None:
            skipped += 1
            ET.SubElement(case, "skipped", message=f"out of scope: {r.scope.reason} (evidence: {r.scope.evidence})")
        elif r.status in (NOT_EXERCISED, EXPECTED_FAIL, FAIL):
            skipped += 1
            reason = {NOT_EXERCISED: "not exercised", EXPECTED_FAIL: f"expected failure: {r.baseline_reason}",
                      FAIL: f"fails, below --fail-on {cert.fail_on}"}[r.status]
            ET.SubElement(case, "skipped", message=reason)
        elif r.status == PASS and r.warnings:  # a pass over what the reading side tolerates: said, not a failure
            node = ET.SubElement(case, "system-out")
            node.text = (f"passed with {len(r.warnings)} warning(s) the reading side tolerates\n"
                         + "\n".join(finding_line(f) for f in r.warnings[:50]))
    if cert.run is not None and not cert.run_ok:
        case = ET.SubElement(suite, "testcase", classname=f"{cert.contract}.run", name="live run")
        node = ET.SubElement(case, "failure", message=cert.run_problem,
                             type="RUN_FAILED" if cert.run_failed else "RUN")
        if cert.program_words:
            node.text = f"the program said: {cert.program_words}"
        failures += 1
    suite.set("gate", cert.gate_line)  # the run's verdict, from the decision its exit code comes from
    tests = len(suite)
    suite.set("tests", str(tests))
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    suite.set("skipped", str(skipped))
    suites = ET.Element("testsuites", name="wirecheck certify", tests=str(tests), failures=str(failures),
                        errors=str(errors))
    suites.append(suite)
    out.write(xml_document(suites))
