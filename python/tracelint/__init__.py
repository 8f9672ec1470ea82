"""tracelint from Python: lint GPU/ML profiler traces, and lint PyTorch
profiler traces as they are written.

    import tracelint
    report = tracelint.lint("trace.json")
    report.findings          # list of dicts, as in `tracelint lint --format json`
    report.to_dataframe()    # the same as a pandas DataFrame

    prof = torch.profiler.profile(
        schedule=torch.profiler.schedule(wait=1, warmup=1, active=3),
        on_trace_ready=tracelint.on_trace_ready("traces", fail_on="error"))

The package runs the tracelint binary (see find_binary for where it looks);
docs/python.md describes it.
"""

from ._binary import find_binary
from .errors import BinaryNotFound, FindingsError, LintFailed, TracelintError
from .profiler import TraceHandler, on_trace_ready
from .report import Report, lint

__version__ = "0.1.0"

__all__ = [
    "BinaryNotFound",
    "FindingsError",
    "LintFailed",
    "Report",
    "TraceHandler",
    "TracelintError",
    "find_binary",
    "lint",
    "on_trace_ready",
]
