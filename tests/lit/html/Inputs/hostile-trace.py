#!/usr/bin/env python3
"""Writes a copy of a Chrome trace whose names hold markup.

    hostile-trace.py IN.json OUT.json

Every kernel, and every operator and thread name, becomes a name that would
run script or fetch something if a report wrote it unescaped: a <script>
element, an <img> with onerror=, an attribute break-out, an http URL.
"""
import json
import sys

HOSTILE = [
    '<script>alert("k")</script>',
    '<img src=x onerror=alert(1)>',
    '"><svg onload=alert(2)>',
    "x' onerror='alert(3)",
    '<link rel=stylesheet href=http://example.com/x.css>',
]

doc = json.load(open(sys.argv[1]))
events = doc["traceEvents"] if isinstance(doc, dict) else doc
renamed = {}
for e in events:
    cat = e.get("cat", "")
    if cat in ("kernel", "cpu_op"):
        name = e["name"]
        if name not in renamed:
            renamed[name] = HOSTILE[len(renamed) % len(HOSTILE)] + " " + name
        e["name"] = renamed[name]
    if e.get("ph") == "M" and e.get("name") == "thread_name":
        e["args"]["name"] = "<script>thread</script>"
json.dump(doc, open(sys.argv[2], "w"))
