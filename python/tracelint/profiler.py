"""tracelint.on_trace_ready(): a torch.profiler handler that lints each trace."""

import os
import socket
import sys
import time

from ._cli import option_args, run_lint
from .report import check_fail_on, lint
from .selection import matching_findings


class TraceHandler:
    """The callable that on_trace_ready() returns; torch.profiler calls it
    with the profiler each time a trace is ready.

    Attributes: ``traces`` (the paths written, in order) and ``reports``
    (their tracelint.Report objects).
    """

    def __init__(self, dir_name, fail_on=None, worker_name=None,
                 use_gzip=False, print_report=True, file=None, binary=None,
                 **options):
        self.dir_name = os.fspath(dir_name)
        self.fail_on = fail_on
        self.worker_name = worker_name
        self.use_gzip = use_gzip
        self.print_report = print_report
        self.file = file
        self.binary = binary
        self.options = options
        self.traces = []
        self.reports = []
        # Wrong options fail here, when the profiler is set up, rather than
        # after the first profiled steps.
        option_args(options)
        if fail_on is not None:
            matching_findings([], fail_on)

    def _trace_path(self):
        worker = self.worker_name or "%s_%d" % (socket.gethostname(),
                                                os.getpid())
        # The names tensorboard_trace_handler gives, so that TensorBoard's
        # profiler plugin reads the same folder.
        suffix = ".pt.trace.json" + (".gz" if self.use_gzip else "")
        stem = os.path.join(self.dir_name,
                            "%s.%d" % (worker, int(time.time() * 1000)))
        path, n = stem + suffix, 1
        while os.path.exists(path):  # two traces in one millisecond
            path, n = "%s-%d%s" % (stem, n, suffix), n + 1
        return path

    def __call__(self, prof):
        os.makedirs(self.dir_name, exist_ok=True)
        path = self._trace_path()
        prof.export_chrome_trace(path)
        self.traces.append(path)
        report = lint(path, binary=self.binary, **self.options)
        self.reports.append(report)
        if self.print_report:
            text, _ = run_lint(path, "text", self.options, binary=self.binary)
            out = self.file if self.file is not None else sys.stdout
            out.write(text)
            out.flush()
        check_fail_on(report, self.fail_on)
        return report


def on_trace_ready(dir_name, fail_on=None, worker_name=None, use_gzip=False,
                   print_report=True, file=None, binary=None, **options):
    """A torch.profiler ``on_trace_ready`` handler, in the manner of
    ``torch.profiler.tensorboard_trace_handler``, that lints each trace.

    Each time the profiler's schedule completes a trace, the handler
    exports it into ``dir_name`` (created if missing) as
    ``WORKER.MILLISECONDS.pt.trace.json`` (``.gz`` with use_gzip=True;
    WORKER is ``worker_name``, by default HOST_PID), lints it, prints the
    text report (to ``file``, default standard output; print_report=False
    prints nothing) and keeps the Report in ``handler.reports``.

    ``fail_on`` (default None: never) raises tracelint.FindingsError, which
    names the findings, when a trace has findings that match it: a
    severity ("info", "warning", "error": that one or higher), or codes,
    family letters or rule names ("S001,M", ["sync-long-host-wait"]). The
    exception leaves the profiler's step() or the end of its ``with``
    block, so the training loop stops there.

    Other keyword options are ``tracelint lint`` flags, as for
    tracelint.lint() (select=, ignore=, config=, step=, top=, ...).

        with torch.profiler.profile(
                schedule=torch.profiler.schedule(wait=1, warmup=1, active=3),
                on_trace_ready=tracelint.on_trace_ready("traces")) as prof:
            for batch in loader:
                train_step(batch)
                prof.step()
    """
    return TraceHandler(dir_name, fail_on=fail_on, worker_name=worker_name,
                        use_gzip=use_gzip, print_report=print_report,
                        file=file, binary=binary, **options)
