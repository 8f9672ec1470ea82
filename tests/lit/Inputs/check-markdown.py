#!/usr/bin/env python3
"""Renders Markdown as GitHub does (cmark-gfm with GitHub's extensions) and
fails when the HTML holds anything a trace name could have injected.

    check-markdown.py FILE

Fails on links, images, raw HTML tags (script, img, iframe...), and on table
rows whose cell count differs from the header's (a '|' that escaped its
cell). Prints the rendered HTML's task-list items, one per line, so that a
test can check their number and order.
"""
import re
import subprocess
import sys

ALLOWED = {"h1", "h2", "h3", "p", "ul", "ol", "li", "strong", "em", "code",
           "blockquote", "table", "thead", "tbody", "tr", "th", "td", "input",
           "br", "hr", "pre", "del"}


def main(argv):
    with open(argv[1], "rb") as f:
        source = f.read()
    html = subprocess.run(
        ["cmark-gfm", "-e", "table", "-e", "autolink", "-e", "tagfilter",
         "-e", "strikethrough", "-e", "tasklist"],
        input=source, stdout=subprocess.PIPE, check=True).stdout.decode(
            "utf-8", "replace")
    bad = []
    for tag in re.findall(r"<\s*/?\s*([A-Za-z][A-Za-z0-9]*)", html):
        if tag.lower() not in ALLOWED:
            bad.append("tag <%s>" % tag)
    if "href=" in html or "src=" in re.sub(r"<code>.*?</code>", "", html,
                                            flags=re.S):
        bad.append("a link or an image")
    for table in re.findall(r"<table>.*?</table>", html, flags=re.S):
        head = len(re.findall(r"<th[ >]", table))
        for row in re.findall(r"<tr>.*?</tr>", table, flags=re.S):
            cells = len(re.findall(r"<t[dh][ >]", row))
            if cells != head:
                bad.append("a table row with %d cells instead of %d"
                           % (cells, head))
    if bad:
        sys.stderr.write(html)
        sys.stderr.write("check-markdown.py: %s: %s\n"
                         % (argv[1], ", ".join(sorted(set(bad)))))
        return 1
    for item in re.findall(r'<li><input type="checkbox"[^>]*>(.*?)(?:<ul>|</li>)',
                           html, flags=re.S):
        print("task: " + re.sub(r"\s+", " ", item).strip())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
