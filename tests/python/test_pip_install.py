#!/usr/bin/env python3
"""`pip install --no-build-isolation .` builds and installs the package
with the distribution's setuptools and wheel (Debian: python3-pip,
python3-setuptools, python3-wheel), offline. The checkout's packaging files
are copied into a temporary folder first, so that the build folder
setuptools writes stays out of the source tree while ctest runs. Exits 77
(skipped) where pip, setuptools or wheel is missing."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import support  # noqa: E402 (beside this file)

# What pyproject.toml reads: itself, the package and its readme.
PACKAGING_FILES = ["pyproject.toml", os.path.join("docs", "python.md")]


class PipInstallTest(unittest.TestCase):
    def test_installs_an_importable_package(self):
        with tempfile.TemporaryDirectory() as tmp:
            checkout = os.path.join(tmp, "checkout")
            for name in PACKAGING_FILES:
                os.makedirs(os.path.dirname(os.path.join(checkout, name)),
                            exist_ok=True)
                shutil.copyfile(os.path.join(support.SOURCE_DIR, name),
                                os.path.join(checkout, name))
            shutil.copytree(
                os.path.join(support.SOURCE_DIR, "python", "tracelint"),
                os.path.join(checkout, "python", "tracelint"),
                ignore=shutil.ignore_patterns("__pycache__"))
            target = os.path.join(tmp, "site")
            env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1")
            env.pop("PYTHONPATH", None)
            proc = subprocess.run(
                [sys.executable, "-m", "pip", "install", "--no-index",
                 "--no-build-isolation", "--no-deps", "--target", target,
                 "."], cwd=checkout, env=env, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, universal_newlines=True)
            self.assertEqual(proc.returncode, 0, proc.stdout)
            self.assertTrue(os.path.isfile(
                os.path.join(target, "tracelint", "profiler.py")))
            self.assertFalse(os.path.exists(
                os.path.join(target, "tracelint", "_layout.py")))
            env["PYTHONPATH"] = target
            out = subprocess.run(
                [sys.executable, "-c",
                 "import sys, tracelint; print(tracelint.__file__); "
                 "print(tracelint.lint(sys.argv[1]).steps)",
                 support.LEGACY_TRACE],
                env=env, stdout=subprocess.PIPE, check=True,
                universal_newlines=True, cwd=tmp).stdout.split("\n")
            self.assertTrue(out[0].startswith(target), out)
            self.assertEqual(out[1], "3")


if __name__ == "__main__":
    for module in ["pip", "setuptools", "wheel"]:
        support.main_requires(module)
    support.main()
