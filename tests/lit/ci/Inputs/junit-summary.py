#!/usr/bin/env python3
"""Parses a JUnit XML report with a strict XML parser and prints one line per
suite and per failure (the failure's text on one line), so that a test can
check that names from the trace survived escaping."""
import sys
import xml.etree.ElementTree as ET

root = ET.parse(sys.argv[1]).getroot()
for suite in root.iter("testsuite"):
    cases = suite.findall("testcase")
    failed = [c for c in cases if c.find("failure") is not None]
    print("suite %s: %d cases, %d failures"
          % (suite.get("name"), len(cases), len(failed)))
    for c in failed:
        text = " ".join(c.find("failure").text.split("\n"))
        print("failure %s: %s" % (c.get("name"), text))
