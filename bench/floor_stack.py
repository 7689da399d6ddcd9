"""Floor: the design card's stack, imported and nothing run. orjson, sqlite3 and hashlib (what the status and
write floors import), click (the entry point, the design card: "cli.py ... click only") and attrs (every record
of the state, the card and the events: "Dependencies: attrs, cattrs, ..."): what any `plcg` command pays before
one module of the ledger loads.

    python bench/floor_stack.py     # prints the modules it imported; exit 0

Beside `python -c pass` it says how much of issue 36's 3x start-up goal is left for the ledger's own modules
and the command's work. It reads no file, so there is no damaged file for it to fail on."""
import hashlib
import sqlite3
import sys

import attrs
import click
import orjson

print(" ".join(m.__name__ for m in (orjson, sqlite3, hashlib, click, attrs)), file=sys.stdout)
