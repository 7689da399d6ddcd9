"""Floor: the payload scan (the bench's narrower scan): `SELECT payload` and its parse; nothing else.

    python bench/floor_payloads.py FILE  # prints the rows read; exit 1 where a payload does not parse

Issue 36 gives each read's ratio to it beside the row scan's (bench/floor_rows.py)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from floor_rows import scan  # noqa: E402

if __name__ == "__main__":
    sys.exit(scan(sys.argv[1], "SELECT payload FROM events ORDER BY seq", (0,)))
