#!/usr/bin/env python3
"""Fails when a file holds bytes that could drive a terminal.

    no-control-chars.py FILE [--allow-sgr]

Forbidden: C0 controls other than newline (ESC, BEL, CR, backspace, ...),
DEL, C1 controls (U+0080..U+009F), bidirectional overrides and isolates, line
and paragraph separators, and bytes that are not UTF-8. With --allow-sgr, the
report's own colour codes (ESC [ digits ; m) are allowed and removed first.
Prints each offending character's offset.
"""
import re
import sys

BAD = re.compile("[\x00-\x09\x0b-\x1f\x7f\x80-\x9f\u202a-\u202e\u2066-\u2069"
                 "\u2028\u2029]")


def main(argv):
    data = open(argv[1], "rb").read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        sys.stderr.write("%s: not UTF-8 at byte %d\n" % (argv[1], e.start))
        return 1
    if "--allow-sgr" in argv[2:]:
        text = re.sub("\x1b\\[[0-9;]*m", "", text)
    bad = [(m.start(), m.group()) for m in BAD.finditer(text)]
    for pos, ch in bad[:20]:
        sys.stderr.write("%s: character %d: U+%04X\n" % (argv[1], pos, ord(ch)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
