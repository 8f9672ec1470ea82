#!/usr/bin/env python3
"""Adds a built-in rule: writes every part a rule needs, in the places the
catalogue check (scripts/check_catalogue.py) looks for them.

    scripts/add_rule.py FAMILY NAME [--summary TEXT] [--code CODE] [--root DIR]

FAMILY is a family letter (S M L D K C N U T); NAME the rule's kebab-case
name ("sync-long-host-wait"). The code is the family's next free one unless
--code gives it. Writes:

    rules/F/CODE-NAME.toml              the rule: options, texts, experiment
    rules/F/CamelName.cpp               its detector, in collect/measure steps
    tests/unit/rules/CamelNameTest.cpp  a firing and a quiet unit test
    fixtures/rules/make_rule_fixtures.py  a generator and two fixture entries
    tests/lit/rules/CODE-NAME.test      the lit test of both fixtures
    docs/rules/CODE-NAME.md             a page, until scripts/gen-rule-docs.py
                                        writes the real one
    CHANGELOG.md                        a line under [Unreleased]

Every place that needs the author's words or logic says TODO(add_rule), and
the catalogue check fails while one is left, so that a rule cannot land
half-written. Then: write the detector and the texts, build, run
`python3 fixtures/rules/make_rule_fixtures.py` and
`scripts/gen-rule-docs.py build/cli/tracelint`, and make the tests pass.
"""

import argparse
import os
import re
import sys

FAMILIES = "SMLDKCNUTX"
MARK = "TODO(add_rule)"


def camel(name):
    return "".join(w[:1].upper() + w[1:] for w in name.split("-"))


def snake(name):
    return name.replace("-", "_")


def next_code(root, family):
    folder = os.path.join(root, "rules", family)
    used = [int(m.group(1)) for n in os.listdir(folder)
            if (m := re.match(rf"{family}(\d{{3}})-", n))] if os.path.isdir(
        folder) else []
    return f"{family}{max(used, default=0) + 1:03d}"


def write_new(path, text):
    if os.path.exists(path):
        sys.exit(f"add_rule: error: {path} exists already")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="\n") as f:
        f.write(text)


def rule_file(code, name, summary):
    return f'''code = "{code}"
name = "{name}"
summary = "{summary}"
status = "preview"
severity = "warning"
needs = ["device", "steady-state"]

[options.min-share-of-step]
default = "5%"
description = "the time the pattern costs per step (median), as a share of the target, at which the rule fires"
why = """{MARK}: why this threshold, from what real traces show."""

[signature]
detector = "{name}"

[text]
hypothesis = """{MARK}: what probably delays completion, with {{value}} {{per}} \\
({{share}} of the {{unit}})"""
evidence = [
  "{MARK}: the events it saw in {{window}}",
]
alternatives = [
  "{MARK}: what else the trace cannot rule out",
]

[experiment]
change = "{MARK}: the one variable to change"
predict-trace = "{MARK}: the trace feature that should appear or vanish"
predict-metric = "{{metric}} falls by at most {{impact}}"
verify = "time 50 warmed-up steps without the profiler, before and after"
refuted-if = "{MARK}: the result that refutes the hypothesis"

[doc]
what = """{MARK}: what the rule detects, and the placeholders the detector fills."""
why = """{MARK}: why it matters for completion time."""
'''


def detector_file(family, code, name):
    c = camel(name)
    return f'''//===- rules/{family}/{c}.cpp - {code} {name} ===//
//
// {MARK}: the rule's reasoning: what it looks at, why that costs completion
// time, and how the impact is bounded.
//
//===----------------------------------------------------------------------===//
#include "rules/BuiltinDetectors.h"
#include "rules/detectors/DetectorSupport.h"

using namespace tracelint;
using namespace tracelint::rules;
using namespace tracelint::rules::detect;
using analysis::TraceIndex;

namespace {{

/// What the rule looks at, per steady window.
struct Collected {{
  std::vector<int64_t> CostPerWindow; ///< parallel to the windows
}};

Collected collect(const TraceIndex &Ctx) {{
  const MeasureWindows &Win = Ctx.measureWindows();
  Collected C;
  C.CostPerWindow.assign(Win.Ranges.size(), 0);
  // {MARK}: walk the index once (Ctx.eventsOfKind, Ctx.hostWaits, ...) and
  // add each event's cost to C.CostPerWindow[Win.indexOf(E.Start)].
  return C;
}}

}} // namespace

Outcome rules::run{c}(const TraceIndex &Ctx, const RuleOptions &Opts,
{" " * len(f"Outcome rules::run{c}(")}std::vector<Detection> &Out) {{
  const int64_t Target = Ctx.targetNs();
  if (Target <= 0)
    return Outcome::ran();
  Collected C = collect(Ctx);
  const int64_t Cost = median(C.CostPerWindow);
  if (double(Cost) < Opts.number("min-share-of-step") * double(Target))
    return Outcome::ran();

  Detection Det;
  Det.Values["value"] = dur(Cost);
  Det.Values["share"] = pct(double(Cost) / double(Target));
  describeWindows(Ctx.measureWindows(), Det.Values);
  Det.ImpactNs = Cost;
  Det.Window = Ctx.measureWindows().describe();
  Det.Subject = "{MARK}";
  Det.Confidence = 0.5;
  Out.push_back(std::move(Det));
  return Outcome::ran();
}}
'''


def unit_test(code, name):
    c = camel(name)
    return f'''//===- rules/{c}Test.cpp - {code} {name} ===//
#include "../DetectorTestSupport.h"

#include "gtest/gtest.h"

using namespace tracelint;
using namespace tracelint::testing;
using analysis::TraceIndex;

namespace {{

/// {MARK}: a trace laid out by hand, with the figures worked out here.
model::Trace steps(bool Fire) {{
  TraceMaker M;
  uint32_t S = M.stream(0, 7);
  for (int K = 0; K < 5; ++K) {{
    int64_t T0 = K * Ms;
    M.step(K + 1, T0, T0 + Ms);
    M.launch(S, "kernel", T0 + 5 * Us, T0 + 10 * Us, T0 + 10 * Us,
             T0 + 900 * Us);
  }}
  (void)Fire;
  return M.finish();
}}

TEST({c}, FiresOnThePattern) {{
  model::Trace T = steps(/*Fire=*/true);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("{code}", Ctx, Out), "");
  ASSERT_EQ(Out.size(), 1u);
}}

TEST({c}, QuietWithoutIt) {{
  model::Trace T = steps(/*Fire=*/false);
  TraceIndex Ctx(T);
  std::vector<rules::Detection> Out;
  EXPECT_EQ(run("{code}", Ctx, Out), "");
  EXPECT_TRUE(Out.empty());
}}

}} // namespace
'''


def lit_test(code, name):
    full = f"{code}-{name}"
    return f'''# {code} {name} on its fixtures (fixtures/rules/make_rule_fixtures.py).
#
#   fire-pattern: {MARK}: the layout and the figures, worked out by hand.
#   quiet-without-it: {MARK}: why the rule stays quiet.

# RUN: %expect-exit 1 %tracelint lint %fixtures/rules/{full}/fire-pattern.json --select {code} \\
# RUN:   | FileCheck %s --check-prefix=FIRE --implicit-check-not='{{{{^[0-9]+\\. [A-Z][0-9]{{3}} }}}}'
# FIRE:      1. {code} [{name}]
# FIRE:       summary     1 finding

# RUN: %tracelint lint %fixtures/rules/{full}/quiet-without-it.json --select {code} \\
# RUN:   | FileCheck %s --check-prefix=QUIET --implicit-check-not='{{{{^[0-9]+\\. [A-Z][0-9]{{3}} }}}}'
# QUIET: summary     no findings
'''


def fixture_generator(code, name):
    fn = snake(name)
    return f'''def {fn}(fire=True):
    """{MARK}: five 1 ms steps, each one op launching a kernel; with \\p fire
    the pattern {code} finds."""
    t = Trace()
    for k in range(5):
        t0 = k * MS
        t.step(k + 1, t0, t0 + MS)
        t.op("aten::mm", t0 + 5 * US, t0 + 20 * US)
        t.launch("kernel", t0 + 10 * US, t0 + 15 * US, 880 * US)
    return t.render()


'''


def add_fixtures(path, code, name):
    text = open(path, encoding="utf-8").read()
    anchor = "FIXTURES = ["
    if anchor not in text:
        sys.exit(f"add_rule: error: {path}: no '{anchor}' to add to")
    fn = snake(name)
    text = text.replace(anchor, fixture_generator(code, name) + anchor, 1)
    end = text.index("\n]\n", text.index(anchor))
    entries = (f'\n    ("{code}-{name}/fire-pattern.json", {fn}),'
               f'\n    ("{code}-{name}/quiet-without-it.json",'
               f'\n     lambda: {fn}(fire=False)),')
    text = text[:end] + entries + text[end:]
    with open(path, "w", newline="\n") as f:
        f.write(text)


def add_changelog(path, code, name):
    text = open(path, encoding="utf-8").read()
    head = "## [Unreleased]\n"
    if head not in text:
        sys.exit(f"add_rule: error: {path}: no '{head.strip()}' section")
    line = f"- {code} `{name}`: {MARK}: what it finds and how it bounds the impact.\n"
    at = text.index(head) + len(head)
    section = "\n### New rules\n"
    nxt = text.find("\n## ", at)
    block = text[at:nxt if nxt >= 0 else len(text)]
    if section in block:
        where = at + block.index(section) + len(section)
        text = text[:where] + line + text[where:]
    else:
        text = text[:at] + section + line + text[at:]
    with open(path, "w", newline="\n") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(
        description="Add a built-in rule with all of its parts.")
    ap.add_argument("family", help="family letter: " + " ".join(FAMILIES))
    ap.add_argument("name", help="kebab-case rule name")
    ap.add_argument("--summary", default=f"{MARK}: one line on the pattern",
                    help="the rule's one-line summary")
    ap.add_argument("--code", help="the code (default: the next free one)")
    ap.add_argument("--root", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), ".."),
        help="the source tree (default: this checkout)")
    args = ap.parse_args()
    family, name = args.family, args.name
    if len(family) != 1 or family not in FAMILIES:
        ap.error(f"FAMILY must be one of {' '.join(FAMILIES)}, not "
                 f"'{family}'")
    if not re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)+", name):
        ap.error(f"NAME must be kebab-case words ('sync-long-host-wait'), "
                 f"not '{name}'")
    if '"' in args.summary or "\\" in args.summary:
        ap.error("--summary may not hold quotes or backslashes")
    root = args.root
    code = args.code or next_code(root, family)
    if not re.fullmatch(rf"{family}\d{{3}}", code):
        ap.error(f"--code must be {family} and three digits, not '{code}'")
    for f in os.listdir(os.path.join(root, "rules")):
        folder = os.path.join(root, "rules", f)
        if os.path.isdir(folder):
            for n in os.listdir(folder):
                if n.startswith(code + "-") or n.endswith(f"-{name}.toml"):
                    sys.exit(f"add_rule: error: rules/{f}/{n} has that code "
                             "or name already")
    full = f"{code}-{name}"
    written = [
        (f"rules/{family}/{full}.toml", rule_file(code, name, args.summary)),
        (f"rules/{family}/{camel(name)}.cpp",
         detector_file(family, code, name)),
        (f"tests/unit/rules/{camel(name)}Test.cpp", unit_test(code, name)),
        (f"tests/lit/rules/{full}.test", lit_test(code, name)),
        (f"docs/rules/{full}.md",
         f"# {code} {name}\n\n{MARK}: run scripts/gen-rule-docs.py "
         "build/cli/tracelint to write this page from the rule file.\n"),
    ]
    for rel, text in written:
        write_new(os.path.join(root, rel), text)
    add_fixtures(os.path.join(root, "fixtures", "rules",
                              "make_rule_fixtures.py"), code, name)
    add_changelog(os.path.join(root, "CHANGELOG.md"), code, name)
    for rel, _ in written:
        print(f"wrote {rel}")
    print("added to fixtures/rules/make_rule_fixtures.py and CHANGELOG.md")
    print(f"next: fill in every {MARK} (scripts/check_catalogue.py lists "
          "them), build, run python3 fixtures/rules/make_rule_fixtures.py "
          "and scripts/gen-rule-docs.py build/cli/tracelint")
    return 0


if __name__ == "__main__":
    sys.exit(main())
