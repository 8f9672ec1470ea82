"""Turning keyword options into tracelint's command-line flags, and running it."""

import json
import os
import subprocess

from ._binary import find_binary
from .errors import LintFailed

# Options the package sets itself: the report is read as JSON (or printed
# as text), and fail_on is judged in Python (tracelint.lint's docstring).
_RESERVED = {
    "format": "the package chooses the output format",
    "o": "the package reads the report from the binary's output",
    "output": "the package reads the report from the binary's output",
}

# Keyword names that are not the flag's name with '_' -> '-'.
_SPELLINGS = {"jobs": "-j"}


def option_args(options):
    """``lint`` flags for keyword options, in the order given.

    ``min_severity="warning"`` -> ``--min-severity=warning``; ``True`` is the
    bare flag and ``False`` ``--flag=false``; a list or tuple repeats the
    flag once per item (``select=["S", "M003"]``); ``None`` is left out;
    ``jobs=N`` is ``-jN``.
    """
    args = []
    for key, value in options.items():
        if key in _RESERVED:
            raise TypeError("lint option %r is not accepted: %s"
                            % (key, _RESERVED[key]))
        if value is None:
            continue
        flag = _SPELLINGS.get(key, "--" + key.replace("_", "-"))
        values = value if isinstance(value, (list, tuple)) else [value]
        for item in values:
            if flag == "-j":
                args.append("-j%d" % int(item))
            elif item is True:
                args.append(flag)
            elif item is False:
                args.append(flag + "=false")
            else:
                args.append("%s=%s" % (flag, os.fspath(item)
                                       if isinstance(item, os.PathLike)
                                       else item))
    return args


def run_lint(path, fmt, options, binary=None):
    """Runs ``tracelint lint --format FMT PATH`` with the options.

    Returns (stdout text, argument list). Exit 0 and 1 (findings at the
    fail level) are results; any other exit raises LintFailed with the
    binary's message. fail-on is always "none", so that 1 means findings
    only when the options ask for it (a baseline).
    """
    command = [find_binary(binary), "lint", "--format=" + fmt,
               "--fail-on=none", "--color=never"]
    command += option_args(options)
    command += ["--", os.fspath(path)]
    proc = subprocess.run(command, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True,
                          encoding="utf-8", errors="replace")
    if proc.returncode not in (0, 1):
        message = _error_message(proc, fmt)
        raise LintFailed("tracelint lint %s failed (exit %d): %s"
                         % (os.fspath(path), proc.returncode, message),
                         returncode=proc.returncode, command=command,
                         stderr=proc.stderr)
    return proc.stdout, command


def _error_message(proc, fmt):
    """The binary's own words for a failure: the JSON report's errors when
    it wrote one, else its standard error."""
    if fmt == "json":
        try:
            errors = json.loads(proc.stdout).get("errors") or []
            messages = [e.get("message", "") for e in errors]
            if any(messages):
                return "; ".join(m for m in messages if m)
        except ValueError:
            pass
    text = proc.stderr.strip()
    return text or "no message"
