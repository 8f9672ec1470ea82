# -*- Python -*-
# lit configuration for the tracelint command-line tests.
#
# Loaded through the lit.site.cfg.py that CMake writes into the build folder
# (it sets the paths of that build). Run the suite with
#   ninja -C BUILD check-lit
# or a subset with
#   python3 /usr/lib/llvm-14/build/utils/lit/lit.py -sv BUILD/tests/lit --filter gzip

import os

import lit.formats
import lit.util

config.name = "tracelint"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test"]
# Inputs/ holds helpers and data used by tests, not tests.
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tracelint_obj_root, "tests", "lit")

# FileCheck, not, split-file and count come from LLVM 14; they go first on
# PATH so that RUN lines can name them bare.
# The interpreter's own folder goes next, so that scripts started through
# `#!/usr/bin/env python3` skip launchers such as pyenv's shims (about 0.4 s
# each; tests/CMakeLists.txt).
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, os.path.dirname(config.python_executable),
     config.environment.get("PATH", os.environ.get("PATH", ""))])

# Reports must not depend on the terminal or the user's environment.
config.environment["NO_COLOR"] = "1"
for var in ["TRACELINT_CONFIG", "CLICOLOR_FORCE"]:
    config.environment.pop(var, None)

config.substitutions.append(("%tracelint", config.tracelint_path))
config.substitutions.append(("%fixtures", config.fixtures_dir))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%scripts", os.path.join(config.tracelint_src_root, "scripts")))
# %expect-exit CODE CMD...: succeeds only when CMD exits with exactly CODE.
config.substitutions.insert(0, ("%expect-exit", "%s %s" % (
    config.python_executable,
    os.path.join(config.test_source_root, "Inputs", "expect-exit.py"))))

# %line-width FILE --max-width N [--max-lines M]: fails when a line of FILE
# is wider than N columns, or FILE has more than M lines.
config.substitutions.insert(0, ("%line-width", "%s %s" % (
    config.python_executable,
    os.path.join(config.test_source_root, "Inputs", "line-width.py"))))

# %no-control-chars FILE: fails when FILE could drive a terminal.
config.substitutions.insert(0, ("%no-control-chars", "%s %s" % (
    config.python_executable,
    os.path.join(config.test_source_root, "Inputs", "no-control-chars.py"))))
# %check-fixtures GENERATOR DIR: fails, naming the command that regenerates
# them, when the fixtures committed beside GENERATOR differ from what it just
# wrote into DIR. One fixtures-current.test per generator runs it, so that no
# other test regenerates fixtures only to compare them.
config.substitutions.insert(0, ("%check-fixtures", "%s %s --source-root %s" % (
    config.python_executable,
    os.path.join(config.test_source_root, "Inputs", "check-fixtures.py"),
    config.tracelint_src_root)))
# %make-bad-inputs DIR [CASE...]: the robustness tests' generated inputs.
config.substitutions.insert(0, ("%make-bad-inputs", "%s %s" % (
    config.python_executable,
    os.path.join(config.fixtures_dir, "bad", "make_bad_inputs.py"))))

for tool in ["FileCheck", "not", "split-file", "count"]:
    if not os.path.exists(os.path.join(config.llvm_tools_dir, tool)):
        lit_config.fatal("cannot find %s in %s (install llvm-14-tools)"
                         % (tool, config.llvm_tools_dir))
if not os.path.exists(config.tracelint_path):
    lit_config.fatal("cannot find the tracelint binary at %s; build it first "
                     "(ninja -C BUILD tracelint, or ninja -C BUILD check-lit)"
                     % config.tracelint_path)

if lit.util.which("gzip", config.environment["PATH"]):
    config.available_features.add("gzip")
# The Nsight Systems tests build their exports from SQL with the sqlite3 shell
# (Debian package sqlite3).
if lit.util.which("sqlite3", config.environment["PATH"]):
    config.available_features.add("sqlite3")
# `tracelint capture` exists only where CUPTI was found at build time; the
# other builds test its "no capture support" message instead.
if getattr(config, "tracelint_has_capture", "OFF").upper() in ("ON", "1", "TRUE"):
    config.available_features.add("capture")
else:
    config.available_features.add("no-capture")
# capture/gpu-check.sh is checked with ShellCheck where it is installed.
if lit.util.which("shellcheck", config.environment["PATH"]):
    config.available_features.add("shellcheck")
# fixtures/gpu: the traces and step times of a GPU run of fixtures/workloads,
# once one has been recorded (docs/capture.md, "GPU validation").
if os.path.exists(os.path.join(config.fixtures_dir, "gpu", "step_times.jsonl")):
    config.available_features.add("gpu-fixtures")

# Tools that check the CI formats. SARIF: Microsoft's SARIF multitool (npm
# package @microsoft/sarif-multitool, installed by `scripts/dev.sh
# sarif-validator`, found through TRACELINT_SARIF_MULTITOOL or on PATH) for
# the SARIF rules, and the official 2.1.0 JSON schema that the package ships,
# checked with Python's jsonschema (Debian python3-jsonschema), because the
# multitool alone lets some schema errors through. Markdown: GitHub's
# renderer (Debian cmark-gfm). Locally a missing tool skips its tests with a
# note; CI sets TRACELINT_REQUIRE_TEST_TOOLS=1, which makes a missing tool an
# error instead of a silent skip.
import subprocess

require_tools = os.environ.get("TRACELINT_REQUIRE_TEST_TOOLS") == "1"
sarif_multitool = os.environ.get("TRACELINT_SARIF_MULTITOOL") or \
    lit.util.which("sarif-multitool", config.environment["PATH"])
if sarif_multitool:
    sarif_multitool = os.path.realpath(sarif_multitool)
sarif_schema = sarif_multitool and os.path.join(
    os.path.dirname(sarif_multitool), "sarif-2.1.0.json")
schema_python = None
for py in [config.python_executable, "/usr/bin/python3"]:
    if os.path.exists(py) and subprocess.run(
            [py, "-c", "import jsonschema"], stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL).returncode == 0:
        schema_python = py
        break
missing = []
if not sarif_multitool or not os.path.exists(sarif_multitool):
    missing.append("the SARIF multitool (TRACELINT_SARIF_MULTITOOL or "
                   "sarif-multitool on PATH; scripts/dev.sh sarif-validator)")
elif not os.path.exists(sarif_schema):
    missing.append("the SARIF schema beside the multitool (%s)" % sarif_schema)
if not schema_python:
    missing.append("Python's jsonschema (python3-jsonschema)")
if not missing:
    config.available_features.add("sarif-validator")
    config.substitutions.append(("%sarif-validate", "%s %s %s %s" % (
        schema_python,
        os.path.join(config.test_source_root, "Inputs", "validate-sarif.py"),
        sarif_multitool, sarif_schema)))
    # The multitool is a .NET program: no ICU needed, and a writable home.
    config.environment["DOTNET_SYSTEM_GLOBALIZATION_INVARIANT"] = "1"
    config.environment["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1"
    if "HOME" in os.environ:
        config.environment["HOME"] = os.environ["HOME"]
elif require_tools:
    lit_config.fatal("TRACELINT_REQUIRE_TEST_TOOLS=1 but the SARIF validator "
                     "is incomplete: missing " + "; ".join(missing))
else:
    lit_config.note("SARIF validation tests skipped: missing " +
                    "; ".join(missing))
if lit.util.which("cmark-gfm", config.environment["PATH"]):
    config.available_features.add("cmark-gfm")
elif require_tools:
    lit_config.fatal("TRACELINT_REQUIRE_TEST_TOOLS=1 but cmark-gfm is missing "
                     "(Debian package cmark-gfm)")
else:
    lit_config.note("cmark-gfm not found: the tests that render Markdown as "
                    "GitHub does are skipped (apt-get install cmark-gfm)")
config.substitutions.append(("%check-markdown", "%s %s" % (
    config.python_executable,
    os.path.join(config.test_source_root, "Inputs", "check-markdown.py"))))

# The HTML report is checked in a real browser: Debian's chromium, headless
# (tests/lit/html/browser.test). %chromium runs it without a sandbox (lit
# may run as root in CI containers) and without a GPU, and with a profile
# folder of its own so that it neither reads nor writes the user's.
chromium = "/usr/bin/chromium"
if os.path.exists(chromium):
    config.available_features.add("chromium")
    config.substitutions.append(("%chromium", "%s --headless --no-sandbox "
                                 "--disable-gpu --hide-scrollbars "
                                 "--no-first-run --user-data-dir=%%t.chromium"
                                 % chromium))
elif require_tools:
    lit_config.fatal("TRACELINT_REQUIRE_TEST_TOOLS=1 but chromium is missing "
                     "(Debian package chromium; scripts/dev.sh installs it)")
else:
    lit_config.note("chromium not found: the test that renders the HTML "
                    "report in a browser is skipped (apt-get install "
                    "chromium)")
