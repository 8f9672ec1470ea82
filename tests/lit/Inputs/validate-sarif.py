#!/usr/bin/env python3
"""Validates SARIF files twice: against the official SARIF 2.1.0 JSON schema
(with Python's jsonschema) and with Microsoft's SARIF multitool.

    validate-sarif.py MULTITOOL SCHEMA FILE...      every file must pass
    validate-sarif.py MULTITOOL SCHEMA --expect-invalid FILE
                                                    the file must be rejected

`Sarif.Multitool validate` exits with 0 even when it reports errors, and it
skips some schema checks (an unknown "level" passes) when the file can be
read into its object model, so both checks run: a schema error or a
multitool "error" line (JSON*, SARIF1*) fails the file; multitool warnings
pass. --expect-invalid proves that a broken file really is rejected, so a
validator that checks nothing cannot make the tests pass.
"""
import json
import re
import subprocess
import sys

import jsonschema

ERROR = re.compile(r": error [A-Z]+[0-9]+:")


def schema_errors(schema, path):
    cls = jsonschema.validators.validator_for(schema)
    checker = getattr(cls, "FORMAT_CHECKER", None)
    validator = cls(schema, format_checker=checker)
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    return ["%s: schema: %s at %s" % (path, e.message,
                                      "/".join(str(p) for p in e.path))
            for e in validator.iter_errors(doc)]


def multitool_errors(tool, path):
    run = subprocess.run([tool, "validate", path], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    out = run.stdout
    if "Analysis completed successfully" not in out and not ERROR.search(out):
        sys.stderr.write(out)
        sys.stderr.write("validate-sarif.py: %s did not run to completion "
                         "(exit %d)\n" % (tool, run.returncode))
        sys.exit(2)
    return [line for line in out.splitlines() if ERROR.search(line)]


def main(argv):
    if len(argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    tool = argv[1]
    with open(argv[2], encoding="utf-8") as f:
        schema = json.load(f)
    if argv[3] == "--expect-invalid":
        found = schema_errors(schema, argv[4]) + multitool_errors(tool, argv[4])
        if not found:
            sys.stderr.write("validate-sarif.py: %s was accepted but is "
                             "invalid\n" % argv[4])
            return 1
        print("rejected as expected: %d error(s)" % len(found))
        return 0
    status = 0
    for path in argv[3:]:
        found = schema_errors(schema, path) + multitool_errors(tool, path)
        for line in found:
            sys.stderr.write(line + "\n")
        if found:
            status = 1
        else:
            print("valid: %s" % path)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
