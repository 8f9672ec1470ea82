#!/usr/bin/env python3
"""Checks a `lint --format html` page against the JSON report of the same run.

    check-html.py REPORT.html LINT.json [--max-bytes N] [--hostile]
                  [--swimlanes N]

Fails (exit 1, one line per problem) when:
  - the page does not hold one class="card" per finding of the JSON report
    (a trace's and, for `lint --job`, the job's);
  - the findings index at the top (<nav class="index">) does not link to
    every card by its id, in the cards' order, or an in-page link
    (href="#id") names an id the page does not have;
  - with --swimlanes N: it does not hold N per-rank swimlane pictures;
  - it holds (as parsed markup, not escaped text) a <script> element or
    another element that loads something (img, link, iframe, ...), an
    event-handler attribute (on...=), a src=, an href= other than an
    in-page link (#id), or a url() or @import in its CSS other than
    url(#id), which points inside the page;
  - it is larger than N bytes;
  - with --hostile: the markup of hostile-trace.py's names does not appear
    escaped (the checks above make sure it does not appear raw).
"""
import argparse
from html.parser import HTMLParser
import json
import re
import sys

ap = argparse.ArgumentParser()
ap.add_argument("html")
ap.add_argument("json")
ap.add_argument("--max-bytes", type=int, default=0)
ap.add_argument("--hostile", action="store_true")
ap.add_argument("--swimlanes", type=int, default=-1)
a = ap.parse_args()

raw = open(a.html, "rb").read()
page = raw.decode("utf-8")
report = json.load(open(a.json))
findings = sum(len(r["findings"]) for r in report["results"])
findings += len(report.get("job", {}).get("findings", []))
problems = []



class Elements(HTMLParser):
    """The page's real elements and attributes (escaped text is not markup)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.cards = 0
        self.card_ids = []
        self.ids = set()
        self.links = []        # in-page links, in page order
        self.index_links = []  # those inside the findings index
        self.in_index = 0
        self.depth = 0
        self.problems = []
        self.in_style = False

    def handle_starttag(self, tag, attrs):
        attrs_d = dict(attrs)
        if attrs_d.get("id"):
            self.ids.add(attrs_d["id"])
        if tag == "nav" and "index" in (attrs_d.get("class") or "").split():
            self.in_index += 1
        href = attrs_d.get("href")
        if tag == "a" and href and href.startswith("#"):
            self.links.append(href[1:])
            if self.in_index:
                self.index_links.append(href[1:])
        if tag in ("script", "link", "img", "iframe", "object", "embed",
                   "image", "use", "base", "frame", "audio", "video"):
            self.problems.append("a <%s> element" % tag)
        for name, value in attrs:
            value = value or ""
            if name.startswith("on"):
                self.problems.append("an event handler: %s=%s" % (name, value[:60]))
            in_page = name == "href" and tag == "a" and value.startswith("#")
            if name in ("src", "href", "xlink:href", "action", "srcset") \
                    and not in_page:
                self.problems.append("%s=%s" % (name, value[:60]))
            if name == "style" and ("url(" in value or "@import" in value):
                self.problems.append("a fetch in a style attribute")
            if name == "class" and "card" in value.split():
                self.cards += 1
                self.card_ids.append(attrs_d.get("id", ""))
        self.in_style = tag == "style"

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        self.in_style = False

    def handle_endtag(self, tag):
        self.in_style = False
        if tag == "nav" and self.in_index:
            self.in_index -= 1

    def handle_data(self, data):
        if self.in_style and ("@import" in data or
                              re.search(r"url\((?!#)", data)):
            self.problems.append("a fetch in the style sheet")


parser = Elements()
parser.feed(page)
parser.close()
problems += parser.problems
cards = parser.cards
if cards != findings:
    problems.append("%d cards for %d findings" % (cards, findings))
if len(set(parser.card_ids)) != len(parser.card_ids) or "" in parser.card_ids:
    problems.append("card ids are missing or not unique: %s" % parser.card_ids)
# The index links each card twice (its number and its code), in order.
indexed = [i for i in parser.index_links if i in set(parser.card_ids)]
if list(dict.fromkeys(indexed)) != parser.card_ids:
    problems.append("the index links %s, the cards are %s"
                    % (list(dict.fromkeys(indexed)), parser.card_ids))
for target in parser.links:
    if target not in parser.ids:
        problems.append("a link to #%s, which the page does not have" % target)
swimlanes = page.count('class="timeline swimlane"')
if a.swimlanes >= 0 and swimlanes != a.swimlanes:
    problems.append("%d swimlanes, expected %d" % (swimlanes, a.swimlanes))
if findings == 0:
    problems.append("the JSON report has no findings: nothing was checked")
# Raw markup of a hostile name, wherever it is, is markup the browser runs.
for raw_markup in ["<script", "<img", "<svg onload", "onerror='"]:
    if raw_markup in page:
        problems.append("raw markup: " + raw_markup)
if a.max_bytes and len(raw) > a.max_bytes:
    problems.append("%d bytes, more than %d" % (len(raw), a.max_bytes))
if a.hostile:
    for escaped in ["&lt;script&gt;alert(&quot;k&quot;)&lt;/script&gt;",
                    "&lt;img src=x onerror=alert(1)&gt;",
                    "&lt;script&gt;thread&lt;/script&gt;"]:
        if escaped not in page:
            problems.append("missing, escaped: " + escaped)
for p in problems:
    print("check-html: " + a.html + ": " + p)
if not problems:
    print("check-html: %d cards, %d bytes" % (cards, len(raw)))
sys.exit(1 if problems else 0)
