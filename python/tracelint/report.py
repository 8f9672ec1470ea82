"""tracelint.lint() and the report it returns."""

import json
import os

from ._cli import run_lint
from .errors import FindingsError, LintFailed
from .selection import describe_findings, matching_findings

# The columns that lead the DataFrame; every other key of a finding follows
# in the order the JSON report gives it.
_LEADING_COLUMNS = ["trace", "code", "name", "severity", "confidence",
                    "impact_ns", "impact_share", "window", "hypothesis",
                    "fingerprint"]


class Report:
    """What ``tracelint lint --format json`` says about one trace.

    Attributes:
      path      the trace that was linted
      findings  the ranked findings, each a dict exactly as in the JSON
                report (code, name, severity, confidence, impact_ns,
                impact_share, window, hypothesis, evidence, experiment, ...)
      target    the target metric: kind ("median_step" or "window"), ns,
                steps (how many steps the trace has), description, and the
                device idle split
      steps     target["steps"]: the number of steps (0 without markers)
      producer  who wrote the trace (format, era, program, platform)
      skipped   the rules that could not judge or do not apply, with why
      result    the whole per-trace object of the JSON report
      raw       the whole JSON report as parsed (version, tool, results,
                errors)
      command   the argument list that produced it
    """

    def __init__(self, path, raw, command=None):
        self.path = os.fspath(path)
        self.raw = raw
        self.command = command
        results = raw.get("results") or []
        if len(results) != 1:
            raise LintFailed("tracelint returned %d results for %s, expected "
                             "one" % (len(results), self.path),
                             command=command)
        self.result = results[0]
        self.findings = list(self.result.get("findings", []))
        self.target = dict(self.result.get("target", {}))
        self.producer = dict(self.result.get("producer", {}))
        self.skipped = list(self.result.get("skipped", []))

    @property
    def steps(self):
        return self.target.get("steps", 0)

    def matching(self, fail_on):
        """The findings that ``fail_on`` selects (see tracelint.lint)."""
        return matching_findings(self.findings, fail_on)

    def to_dataframe(self):
        """The findings as a pandas DataFrame, one row per finding.

        Columns: trace (this report's path), code, name, severity,
        confidence, impact_ns, impact_share, window, hypothesis,
        fingerprint, then every other key of the JSON findings (nested
        values stay dicts and lists). A report without findings gives an
        empty frame with those columns. Needs pandas.
        """
        try:
            import pandas
        except ImportError as err:
            raise ImportError(
                "Report.to_dataframe() needs pandas, which is not installed "
                "(Debian: apt-get install python3-pandas; elsewhere: pip "
                "install pandas); report.findings holds the same data as a "
                "list of dicts") from err
        columns = list(_LEADING_COLUMNS)
        for finding in self.findings:
            for key in finding:
                if key not in columns:
                    columns.append(key)
        rows = [dict(finding, trace=self.path) for finding in self.findings]
        return pandas.DataFrame(rows, columns=columns)

    def __repr__(self):
        return "<tracelint.Report %s: %d finding%s, %s>" % (
            self.path, len(self.findings),
            "" if len(self.findings) == 1 else "s",
            self.target.get("description", "no target"))


def lint(path, binary=None, fail_on=None, **options):
    """Lints one trace with the tracelint binary and returns a Report.

    ``options`` are ``tracelint lint`` flags, spelt with underscores:
    ``select="S,M003"``, ``ignore=["T"]``, ``config="tracelint.toml"``,
    ``isolated=True``, ``rules=["my-rules"]``, ``step="train_step"``,
    ``min_severity="warning"``, ``path_bounds=False``, ``jobs=2``... (True
    is the bare flag, False ``--flag=false``, a list repeats the flag).

    ``fail_on`` (default None: never) raises FindingsError, naming them,
    when findings match: a severity ("info", "warning", "error": that one
    or higher), or codes, family letters or rule names (a comma-separated
    string or a list: "S001,M", ["sync-long-host-wait"]).

    ``binary`` is the tracelint binary to run; by default the one
    installed beside the package, then $TRACELINT, then PATH.

    Raises LintFailed when tracelint refuses the trace or the options
    (exit 2 or 3), with its message.
    """
    out, command = run_lint(path, "json", options, binary=binary)
    try:
        raw = json.loads(out)
    except ValueError as err:
        raise LintFailed("tracelint wrote no JSON report for %s: %s"
                         % (os.fspath(path), err), command=command) from err
    report = Report(path, raw, command)
    check_fail_on(report, fail_on)
    return report


def check_fail_on(report, fail_on):
    """Raises FindingsError when findings of ``report`` match ``fail_on``."""
    if fail_on is None:
        return
    matched = report.matching(fail_on)
    if matched:
        raise FindingsError(
            "tracelint: %s in %s matched fail_on=%r: %s"
            % (_count(len(matched)), report.path, fail_on,
               describe_findings(matched)), matched, report)


def _count(n):
    return "%d finding%s" % (n, "" if n == 1 else "s")
