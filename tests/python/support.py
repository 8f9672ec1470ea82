"""What the Python tests share: the source tree, the required-tools switch,
and running a test module with ctest's skip code."""

import importlib.util
import os
import sys
import unittest

SOURCE_DIR = os.environ.get(
    "TRACELINT_SOURCE_DIR",
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
        __file__)))))
FIXTURES = os.path.join(SOURCE_DIR, "fixtures")
LEGACY_TRACE = os.path.join(FIXTURES, "legacy-exporter", "torch-1.13-cpu.json")
EXAMPLE_TRACE = os.path.join(FIXTURES, "example", "train-steps.json")

#: ctest's SKIP_RETURN_CODE for these tests (tests/python/CMakeLists.txt).
SKIP = 77

# CI (scripts/dev.sh) sets this: a missing test dependency fails the tests
# instead of skipping them.
REQUIRED = os.environ.get("TRACELINT_REQUIRE_TEST_TOOLS") == "1"


def have(module):
    """Whether ``module`` is installed. It is looked up, not imported:
    importing pip and then setuptools in one process trips setuptools'
    distutils check."""
    return importlib.util.find_spec(module) is not None


def skip_unless(module, why):
    """unittest's skip decorator when ``module`` is missing, or a failure
    when the tools are required."""
    if have(module):
        return lambda f: f
    if REQUIRED:
        def fail(self):
            self.fail("%s is not installed (%s) and "
                      "TRACELINT_REQUIRE_TEST_TOOLS=1" % (module, why))
        return lambda f: fail
    return unittest.skip("%s is not installed (%s)" % (module, why))


def main_requires(module):
    """Exits with SKIP, before any test runs, when ``module`` is missing
    and not required (a failure when it is)."""
    if have(module):
        return
    if REQUIRED:
        sys.exit("%s is not installed and TRACELINT_REQUIRE_TEST_TOOLS=1"
                 % module)
    print("skipped: %s is not installed" % module)
    sys.exit(SKIP)


def main(needs=None):
    """Runs the calling module's tests, after main_requires(needs)."""
    if needs:
        main_requires(needs)
    program = unittest.main(module="__main__", exit=False, verbosity=2)
    result = program.result
    if result.wasSuccessful() and result.testsRun == len(result.skipped):
        sys.exit(SKIP)
    sys.exit(0 if result.wasSuccessful() else 1)
