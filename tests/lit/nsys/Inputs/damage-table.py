#!/usr/bin/env python3
"""damage-table.py DB TABLE: overwrites the root page of TABLE in the SQLite
file DB with bytes that are not a b-tree page, leaving the rest intact, so
that reading that table (and only it) fails as corrupt."""
import sqlite3
import sys

path, table = sys.argv[1], sys.argv[2]
con = sqlite3.connect(path)
page_size = con.execute("PRAGMA page_size").fetchone()[0]
root = con.execute("SELECT rootpage FROM sqlite_master WHERE name = ?",
                   (table,)).fetchone()[0]
con.close()
with open(path, "r+b") as f:
    f.seek((root - 1) * page_size)
    f.write(b"\x7f" * page_size)
