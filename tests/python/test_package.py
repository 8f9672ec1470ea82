#!/usr/bin/env python3
"""The tracelint package's API on committed fixtures, against the build's
binary (TRACELINT): lint(), the Report, to_dataframe(), fail_on, options,
and where the binary is looked for."""

import json
import os
import stat
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

import support  # noqa: E402 (beside this file)

import tracelint
from tracelint import _cli


class LintTest(unittest.TestCase):
    def test_findings_are_the_json_reports(self):
        report = tracelint.lint(support.EXAMPLE_TRACE)
        out = subprocess.run(
            [os.environ["TRACELINT"], "lint", "--format=json",
             "--fail-on=none", support.EXAMPLE_TRACE],
            stdout=subprocess.PIPE, check=True).stdout
        expected = json.loads(out)["results"][0]
        self.assertEqual(report.findings, expected["findings"])
        self.assertEqual(report.target, expected["target"])
        self.assertEqual(report.raw["results"][0], expected)
        self.assertEqual([f["code"] for f in report.findings][:2],
                         ["L001", "K001"])
        self.assertEqual(report.steps, 4)
        self.assertEqual(report.target["kind"], "median_step")
        self.assertIn("7 findings", repr(report))

    def test_legacy_export_has_steps(self):
        report = tracelint.lint(support.LEGACY_TRACE)
        self.assertEqual(report.steps, 3)
        self.assertEqual(report.target["kind"], "median_step")
        self.assertIn("legacy exporter", report.producer["era"])
        self.assertEqual(report.producer["program"], "pytorch")
        self.assertNotIn("T002", [f["code"] for f in report.findings])

    def test_options_become_flags(self):
        report = tracelint.lint(support.EXAMPLE_TRACE, select=["S", "L001"],
                                path_bounds=False, jobs=1)
        self.assertEqual(sorted(f["code"] for f in report.findings),
                         ["L001", "S001", "S003"])
        self.assertEqual(
            _cli.option_args({"select": "S,M003", "isolated": True,
                              "path_bounds": False, "rules": ["a", "b"],
                              "min_severity": "warning", "top": 3,
                              "config": None, "jobs": 2}),
            ["--select=S,M003", "--isolated", "--path-bounds=false",
             "--rules=a", "--rules=b", "--min-severity=warning", "--top=3",
             "-j2"])
        with self.assertRaisesRegex(TypeError, "format"):
            tracelint.lint(support.EXAMPLE_TRACE, format="text")

    def test_refusals_carry_the_binarys_message(self):
        with self.assertRaises(tracelint.LintFailed) as caught:
            tracelint.lint(os.path.join(support.FIXTURES, "no-such.json"))
        self.assertEqual(caught.exception.returncode, 3)
        self.assertIn("no-such.json: cannot open", str(caught.exception))
        with self.assertRaises(tracelint.LintFailed) as caught:
            tracelint.lint(support.EXAMPLE_TRACE, select="Q999")
        self.assertEqual(caught.exception.returncode, 2)
        self.assertIn("invalid selector 'Q999'", str(caught.exception))


class DataFrameTest(unittest.TestCase):
    @support.skip_unless("pandas", "Debian: python3-pandas")
    def test_one_row_per_finding(self):
        report = tracelint.lint(support.EXAMPLE_TRACE)
        frame = report.to_dataframe()
        self.assertEqual(len(frame), len(report.findings))
        self.assertEqual(list(frame.columns[:4]),
                         ["trace", "code", "name", "severity"])
        self.assertEqual(list(frame["code"]),
                         [f["code"] for f in report.findings])
        self.assertEqual(frame["impact_ns"].iloc[0], 82000)
        self.assertTrue((frame["trace"] == support.EXAMPLE_TRACE).all())
        self.assertIn("experiment", frame.columns)

    @support.skip_unless("pandas", "Debian: python3-pandas")
    def test_no_findings_keep_the_columns(self):
        frame = tracelint.lint(support.LEGACY_TRACE,
                               select="S001").to_dataframe()
        self.assertEqual(len(frame), 0)
        self.assertIn("impact_ns", frame.columns)

    def test_without_pandas_the_error_says_what_to_install(self):
        report = tracelint.lint(support.LEGACY_TRACE)
        with mock.patch.dict(sys.modules, {"pandas": None}):
            with self.assertRaisesRegex(ImportError,
                                        "needs pandas.*python3-pandas"):
                report.to_dataframe()


class FailOnTest(unittest.TestCase):
    def setUp(self):
        self.report = tracelint.lint(support.EXAMPLE_TRACE)

    def codes(self, fail_on):
        return [f["code"] for f in self.report.matching(fail_on)]

    def test_severity_selects_it_and_higher(self):
        self.assertEqual(self.codes("warning"), ["L001", "K001"])
        self.assertEqual(self.codes("error"), [])
        self.assertEqual(len(self.codes("info")), 7)

    def test_codes_families_and_names(self):
        self.assertEqual(self.codes("s001"), ["S001"])
        self.assertEqual(self.codes("M"), ["M002", "M003"])
        self.assertEqual(self.codes(["launch-bound-short-kernels", "U"]),
                         ["L001", "U001"])
        self.assertEqual(self.codes("S001, error"), ["S001"])

    def test_raises_naming_the_findings(self):
        with self.assertRaises(tracelint.FindingsError) as caught:
            tracelint.lint(support.EXAMPLE_TRACE, fail_on="warning")
        message = str(caught.exception)
        self.assertIn("2 findings", message)
        self.assertIn("L001 [launch-bound-short-kernels] warning, impact "
                      "82 us (31.5 % of the target)", message)
        self.assertIn("K001 [fp32-matmul-no-tensor-cores]", message)
        self.assertEqual([f["code"] for f in caught.exception.findings],
                         ["L001", "K001"])
        self.assertEqual(caught.exception.report.path, support.EXAMPLE_TRACE)
        tracelint.lint(support.EXAMPLE_TRACE, fail_on="error")

    def test_nonsense_is_refused(self):
        for bad in ["", "warnings", "S01", ["S001", "bad name"]]:
            with self.assertRaises(ValueError, msg=repr(bad)):
                self.report.matching(bad)


def write_script(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


class FindBinaryTest(unittest.TestCase):
    """The order: binary=, beside the installed package, $TRACELINT, PATH."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.on_path = os.path.join(self.tmp.name, "path")
        os.mkdir(self.on_path)
        write_script(os.path.join(self.on_path, "tracelint"), "#!/bin/sh\n")
        self.env_binary = os.path.join(self.tmp.name, "env-tracelint")
        write_script(self.env_binary, "#!/bin/sh\n")

    def find(self, env):
        with mock.patch.dict(os.environ, env, clear=False):
            if "TRACELINT" not in env:
                os.environ.pop("TRACELINT", None)
            return tracelint.find_binary()

    def test_environment_then_path(self):
        self.assertEqual(self.find({"TRACELINT": self.env_binary,
                                    "PATH": self.on_path}), self.env_binary)
        self.assertEqual(self.find({"PATH": self.on_path}),
                         os.path.join(self.on_path, "tracelint"))
        with self.assertRaisesRegex(tracelint.BinaryNotFound,
                                    "TRACELINT=/nonexistent.*PATH"):
            self.find({"TRACELINT": "/nonexistent", "PATH": self.tmp.name})

    def test_explicit_binary_wins(self):
        with mock.patch.dict(os.environ, {"TRACELINT": self.env_binary}):
            self.assertEqual(tracelint.find_binary(os.environ["TRACELINT"]),
                             self.env_binary)
            with self.assertRaises(tracelint.BinaryNotFound):
                tracelint.find_binary("/nonexistent")

    def test_the_binary_installed_beside_the_package_comes_first(self):
        # The layout `cmake --install` makes: PREFIX/bin/tracelint and
        # PREFIX/lib/pythonX.Y/dist-packages/tracelint/_layout.py.
        prefix = os.path.join(self.tmp.name, "prefix")
        site = os.path.join(prefix, "lib", "python3", "dist-packages")
        package = os.path.join(site, "tracelint")
        os.makedirs(os.path.join(prefix, "bin"))
        source = os.path.dirname(tracelint.__file__)
        os.makedirs(package)
        for name in os.listdir(source):
            if name.endswith(".py"):
                with open(os.path.join(source, name)) as f:
                    text = f.read()
                with open(os.path.join(package, name), "w") as f:
                    f.write(text)
        with open(os.path.join(package, "_layout.py"), "w") as f:
            f.write('BINARY_FROM_PACKAGE = "../../../../bin/tracelint"\n')
        installed = os.path.join(prefix, "bin", "tracelint")
        write_script(installed, "#!/bin/sh\n")
        env = dict(os.environ, PYTHONPATH=site, TRACELINT=self.env_binary,
                   PATH=self.on_path)
        out = subprocess.run(
            [sys.executable, "-c",
             "import tracelint; print(tracelint.find_binary())"],
            env=env, stdout=subprocess.PIPE, check=True,
            universal_newlines=True).stdout
        self.assertEqual(out.strip(), installed)


class VersionTest(unittest.TestCase):
    def test_the_package_has_the_projects_version(self):
        expected = os.environ.get("TRACELINT_PROJECT_VERSION")
        if not expected:
            self.skipTest("run by ctest, which passes the CMake version")
        self.assertEqual(tracelint.__version__, expected)


if __name__ == "__main__":
    support.main()
