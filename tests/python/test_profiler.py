#!/usr/bin/env python3
"""tracelint.on_trace_ready under a real torch.profiler run (CPU only, as
Debian's python3-torch records it): a small training loop with
schedule(wait=1, warmup=1, active=3). Exits 77 (skipped) without torch."""

import io
import os
import re
import tempfile
import unittest

import support  # noqa: E402 (beside this file)

import tracelint

# A user rule that fires on every trace this loop records: one optimizer
# step per profiled step. fail_on and the handler's lint options are tested
# with it, since no built-in rule is sure to fire on a CPU-only trace.
OPTIMIZER_RULE = """\
code = "X900"
name = "optimizer-step-in-step"
summary = "the optimizer steps inside a profiled step"

[signature.select]
kind = "op"
name = "Optimizer.step#*"
inside = "steps"

[text]
hypothesis = "{count} optimizer steps run inside the profiled steps"
evidence = ["{count} optimizer steps, {total} in all"]
alternatives = ["none: a test rule"]

[experiment]
change = "nothing: a test rule"
predict-trace = "no change"
predict-metric = "median step time falls by at most {impact}"
verify = "none"
refuted-if = "never"
"""


def train(handler, iterations=5, repeat=1):
    """Trains a small model for ``iterations`` steps under torch.profiler
    with ``handler`` as on_trace_ready."""
    import torch
    import torch.profiler as profiler

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(),
                                torch.nn.Linear(32, 4))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with profiler.profile(
            activities=[profiler.ProfilerActivity.CPU],
            schedule=profiler.schedule(wait=1, warmup=1, active=3,
                                       repeat=repeat),
            on_trace_ready=handler) as prof:
        for _ in range(iterations):
            x, y = torch.randn(8, 16), torch.randn(8, 4)
            loss = torch.nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            prof.step()


class OnTraceReadyTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.dir = os.path.join(self.tmp.name, "traces")
        self.rules = os.path.join(self.tmp.name, "rules")
        os.mkdir(self.rules)
        with open(os.path.join(self.rules, "X900-optimizer-step-in-step.toml"),
                  "w") as f:
            f.write(OPTIMIZER_RULE)

    def test_each_trace_is_written_linted_and_printed(self):
        out = io.StringIO()
        handler = tracelint.on_trace_ready(self.dir, worker_name="worker0",
                                           file=out)
        train(handler, iterations=10, repeat=2)
        # Two cycles of wait, warmup and three active steps: two traces,
        # named as tensorboard_trace_handler names them.
        names = sorted(os.listdir(self.dir))
        self.assertEqual(len(names), 2, names)
        for name in names:
            self.assertRegex(name, r"^worker0\.\d+(-\d+)?\.pt\.trace\.json$")
        self.assertEqual(handler.traces,
                         [os.path.join(self.dir, n) for n in names])
        self.assertEqual(len(handler.reports), 2)
        for report in handler.reports:
            self.assertEqual(report.steps, 3, report.target)
            self.assertEqual(report.target["kind"], "median_step")
            self.assertEqual(report.producer["program"], "pytorch")
            self.assertNotIn("T002", [f["code"] for f in report.findings])
        text = out.getvalue()
        self.assertEqual(text.count("tracelint lint: "), 2)
        self.assertEqual(len(re.findall(r"^target +median step time ", text,
                                        re.M)), 2, text)
        self.assertNotIn("no step markers", text)

        # The traces lint again from Python, and as a DataFrame.
        report = tracelint.lint(handler.traces[0], rules=[self.rules],
                                select="X900")
        self.assertEqual([f["code"] for f in report.findings], ["X900"])
        if support.have("pandas") or support.REQUIRED:
            frame = report.to_dataframe()
            self.assertEqual(list(frame["code"]), ["X900"])
            self.assertEqual(list(frame["trace"]), [handler.traces[0]])

    def test_fail_on_stops_the_loop_naming_the_findings(self):
        out = io.StringIO()
        handler = tracelint.on_trace_ready(
            self.dir, worker_name="w", file=out, fail_on="X900",
            rules=[self.rules], select=["X900", "T"])
        with self.assertRaises(tracelint.FindingsError) as caught:
            train(handler)
        self.assertRegex(str(caught.exception),
                         r"^tracelint: 1 finding in .*/w\.\d+\.pt\.trace\.json "
                         r"matched fail_on='X900': X900 "
                         r"\[optimizer-step-in-step\] \w+, impact ")
        self.assertEqual([f["code"] for f in caught.exception.findings],
                         ["X900"])
        # The report was printed before the exception.
        self.assertIn("X900 [optimizer-step-in-step]", out.getvalue())

    def test_fail_on_that_matches_nothing_lets_the_loop_finish(self):
        handler = tracelint.on_trace_ready(
            self.dir, file=io.StringIO(), fail_on="error",
            rules=[self.rules], select="X900", print_report=False)
        train(handler)
        self.assertEqual(len(handler.reports), 1)
        self.assertTrue(all(f["severity"] != "error"
                            for f in handler.reports[0].findings))

    def test_bad_options_fail_before_profiling(self):
        with self.assertRaises(ValueError):
            tracelint.on_trace_ready(self.dir, fail_on="warnings")
        with self.assertRaises(TypeError):
            tracelint.on_trace_ready(self.dir, format="json")
        self.assertFalse(os.path.exists(self.dir))


if __name__ == "__main__":
    support.main(needs="torch")
