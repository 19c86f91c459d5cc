"""JUnit XML: one test case per requirement. Failures fail; not exercised fails at a failing level and is skipped
below it; expected failures are skipped with the baseline's reason; stale baseline entries fail."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import TextIO

from wirecheck.certify.evaluate import EXPECTED_FAIL, FAIL, NOT_EXERCISED, UNEXPECTED_PASS, Certification
from wirecheck.junit_xml import xml_document
from wirecheck.report.summary import finding_line


def write(cert: Certification, out: TextIO) -> None:
    failing_levels = cert.failing_levels()
    blocking = {id(r) for r in cert.blocking()}  # the gate's: a failure here is a failure of the run
    suite = ET.Element("testsuite", name=f"wirecheck certify {cert.contract}")
    failures = skipped = 0
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
        elif r.status == NOT_EXERCISED and req.level in failing_levels:
            failures += 1
            ET.SubElement(case, "failure", message="not exercised by the captures", type="NOT_EXERCISED")
        elif r.status in (NOT_EXERCISED, EXPECTED_FAIL, FAIL):
            skipped += 1
            reason = {NOT_EXERCISED: "not exercised", EXPECTED_FAIL: f"expected failure: {r.baseline_reason}",
                      FAIL: f"fails, below --fail-on {cert.fail_on}"}[r.status]
            ET.SubElement(case, "skipped", message=reason)
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
    suite.set("skipped", str(skipped))
    suites = ET.Element("testsuites", name="wirecheck certify", tests=str(tests), failures=str(failures))
    suites.append(suite)
    out.write(xml_document(suites))
