#!/usr/bin/env python3
"""Checks that every built-in rule has all of its parts, and that they agree.

    scripts/check_catalogue.py [--root DIR]

For each rules/<F>/<CODE>-<name>.toml:

  - the file lies in the folder of its family and is named after its code
    and name;
  - a rule with a C++ detector names itself (detector = "<name>") and has
    rules/<F>/<CamelName>.cpp defining rules::run<CamelName>;
  - every option the detector reads (Opts.number/string/flag("...")) is
    declared in the rule file, every declared option is read by the
    detector or by a detector helper, and no detector keeps a fallback of
    its own (optionOr);
  - a unit test tests/unit/rules/<CamelName>Test.cpp runs the rule
    (run("<CODE>", ...));
  - fixtures/rules/<CODE>-<name>/ holds at least one fire-*.json and one
    quiet-*.json;
  - a lit test tests/lit/rules/<CODE>-<name>.test selects the rule;
  - a page docs/rules/<CODE>-<name>.md (its text is checked by
    tests/lit/docs/rule-pages.test);
  - CHANGELOG.md names the code;
  - none of these still holds a TODO(add_rule) that scripts/add_rule.py
    left for the author.

And the other way: every detector source, unit test of a rule, fixture
folder, rule lit test and rule page belongs to a rule. scripts/add_rule.py
writes all of these for a new rule. Prints one line per problem and exits 1
when there is any.
"""

import argparse
import os
import re
import sys
import tomllib

# What scripts/add_rule.py leaves for the author to write.
MARK = "TODO(add_rule)"
OPTION_READ = re.compile(r'Opts\.(?:number|string|flag|has)\("([a-z0-9-]+)"\)')
DETECTOR_HELPERS = os.path.join("engine", "rules", "detectors")


def camel(name):
    return "".join(w[:1].upper() + w[1:] for w in name.split("-"))


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def check(root):
    problems = []
    rules_dir = os.path.join(root, "rules")
    helper_reads = set()
    helpers = os.path.join(root, DETECTOR_HELPERS)
    if os.path.isdir(helpers):
        for name in os.listdir(helpers):
            if name.endswith(".cpp"):
                helper_reads |= set(OPTION_READ.findall(
                    read(os.path.join(helpers, name))))
    changelog = read(os.path.join(root, "CHANGELOG.md")) if os.path.exists(
        os.path.join(root, "CHANGELOG.md")) else ""

    seen = {"sources": set(), "tests": set(), "fixtures": set(),
            "lit": set(), "docs": set()}
    for family in sorted(os.listdir(rules_dir)):
        folder = os.path.join(rules_dir, family)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".toml"):
                continue
            rel = f"rules/{family}/{name}"
            try:
                spec = tomllib.loads(read(os.path.join(folder, name)))
            except tomllib.TOMLDecodeError as e:
                problems.append(f"{rel}: not valid TOML: {e}")
                continue
            code, rule = spec.get("code", ""), spec.get("name", "")
            full = f"{code}-{rule}"
            if name != full + ".toml":
                problems.append(f"{rel}: should be named {full}.toml "
                                "(its code and name)")
            if code[:1] != family:
                problems.append(f"{rel}: code {code} is not of family "
                                f"{family}")
            declared = set(spec.get("options", {}))
            detector = spec.get("signature", {}).get("detector")
            if detector is not None:
                source = f"rules/{family}/{camel(rule)}.cpp"
                seen["sources"].add(source)
                if detector != rule:
                    problems.append(f'{rel}: detector = "{detector}" must '
                                    f'name the rule itself ("{rule}")')
                if not os.path.exists(os.path.join(root, source)):
                    problems.append(f"{rel}: no detector source {source}")
                else:
                    text = read(os.path.join(root, source))
                    if f"rules::run{camel(rule)}(" not in text:
                        problems.append(f"{source}: expected the definition "
                                        f"of rules::run{camel(rule)}")
                    if "optionOr(" in text:
                        problems.append(f"{source}: keeps a fallback for an "
                                        "option (optionOr); options come "
                                        "from the rule file")
                    reads = set(OPTION_READ.findall(text))
                    for opt in sorted(reads - declared):
                        problems.append(f"{source}: reads option '{opt}', "
                                        f"which {rel} does not declare")
                    for opt in sorted(declared - reads - helper_reads):
                        problems.append(f"{rel}: option '{opt}' is read by "
                                        "no detector")
            test = f"tests/unit/rules/{camel(rule)}Test.cpp"
            seen["tests"].add(test)
            if not os.path.exists(os.path.join(root, test)):
                problems.append(f"{rel}: no unit test {test}")
            elif f'run("{code}"' not in read(os.path.join(root, test)):
                problems.append(f'{test}: never runs the rule (run("{code}", '
                                "...))")
            fixtures = f"fixtures/rules/{full}"
            seen["fixtures"].add(fixtures)
            files = (os.listdir(os.path.join(root, fixtures))
                     if os.path.isdir(os.path.join(root, fixtures)) else [])
            for kind in ("fire", "quiet"):
                if not any(f.startswith(kind + "-") and f.endswith(".json")
                           for f in files):
                    problems.append(f"{rel}: no {kind}-*.json fixture in "
                                    f"{fixtures}/")
            lit = f"tests/lit/rules/{full}.test"
            seen["lit"].add(lit)
            if not os.path.exists(os.path.join(root, lit)):
                problems.append(f"{rel}: no lit test {lit}")
            elif f"--select {code}" not in read(os.path.join(root, lit)):
                problems.append(f"{lit}: never selects {code}")
            doc = f"docs/rules/{full}.md"
            seen["docs"].add(doc)
            if not os.path.exists(os.path.join(root, doc)):
                problems.append(f"{rel}: no page {doc} (scripts/gen-rule-"
                                "docs.py writes it)")
            if code and code not in changelog:
                problems.append(f"{rel}: CHANGELOG.md does not mention "
                                f"{code}")
            for part in (rel, f"rules/{family}/{camel(rule)}.cpp", test, lit,
                         doc):
                path = os.path.join(root, part)
                if os.path.exists(path) and MARK in read(path):
                    problems.append(f"{part}: still holds {MARK}: write "
                                    "what it asks for")
            for line in changelog.splitlines():
                if code and code in line and MARK in line:
                    problems.append(f"CHANGELOG.md: the line for {code} "
                                    f"still holds {MARK}")
    generator = os.path.join(root, "fixtures", "rules", "make_rule_fixtures.py")
    if os.path.exists(generator) and MARK in read(generator):
        problems.append(f"fixtures/rules/make_rule_fixtures.py: still holds "
                        f"{MARK}: lay the fixtures out and document them")

    def strays(kind, pattern, listing):
        for path in listing:
            if path not in seen[kind]:
                problems.append(f"{path}: belongs to no rule ({pattern})")

    strays("sources", "rules/F/CamelName.cpp",
           [f"rules/{f}/{n}" for f in sorted(os.listdir(rules_dir))
            if os.path.isdir(os.path.join(rules_dir, f))
            for n in sorted(os.listdir(os.path.join(rules_dir, f)))
            if n.endswith(".cpp")])

    def listing(folder, suffix, prefix):
        full = os.path.join(root, folder)
        if not os.path.isdir(full):
            return []
        return [f"{folder}/{n}" for n in sorted(os.listdir(full))
                if n.endswith(suffix) and re.match(prefix, n)]

    strays("tests", "tests/unit/rules/CamelNameTest.cpp",
           listing("tests/unit/rules", "Test.cpp", r""))
    strays("fixtures", "fixtures/rules/CODE-name/",
           [p for p in listing("fixtures/rules", "", r"[A-Z][0-9]{3}-")
            if os.path.isdir(os.path.join(root, p))])
    strays("lit", "tests/lit/rules/CODE-name.test",
           listing("tests/lit/rules", ".test", r"[A-Z][0-9]{3}-"))
    strays("docs", "docs/rules/CODE-name.md",
           listing("docs/rules", ".md", r"[A-Z][0-9]{3}-"))
    return problems


def main():
    parser = argparse.ArgumentParser(
        description="Check that every built-in rule has all of its parts.")
    parser.add_argument("--root", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), ".."),
        help="the source tree (default: this checkout)")
    args = parser.parse_args()
    if not os.path.isdir(os.path.join(args.root, "rules")):
        print(f"check_catalogue: error: {args.root} has no rules/ folder",
              file=sys.stderr)
        return 2
    problems = check(args.root)
    for p in problems:
        print(p)
    if problems:
        print(f"check_catalogue: {len(problems)} problem(s); "
              "scripts/add_rule.py writes every part of a new rule",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
