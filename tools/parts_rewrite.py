"""The mechanical half of the map/terrain part of CampaignState (issue 22 item 2): every access to the
state's old flat fields `control`, `terrain` and `fortifications` rewritten to the typed part
`ground` (cg.state.Ground). Idempotent: run it again on code merged from elsewhere and it rewrites only
what is still in the old form (`st.ground.terrain` is never matched again).

    python tools/parts_rewrite.py            # rewrites the tree in place, prints the files changed
    python tools/parts_rewrite.py --check    # exit 1 (and the files) if anything is left to rewrite

What it rewrites (in cg/, events/, projections/, cli.py, tests/, bench/):
- `st.control`, `self.st.terrain`, `state.fortifications`, `c.state().terrain`, `g.state("allied").terrain`...
  -> `st.ground.control` ... (a receiver named `st`, `self.st` or `state`, or a call `state(...)`);
- in cg/state.py, CampaignState's own methods: `self.control` / `self.terrain` -> `self.ground.*`.
Not rewritten: the card's `control` / `fortifications` (card.sides[...].control), an event's fields
(p.control, p.terrain), projections/aar.py's own `self.control` / `self.terrain` (its copies).
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREES = ("cg", "events", "projections", "tests", "bench")
FILES = ("cli.py",)

GROUND = ("control", "terrain", "fortifications")
RECEIVER = r"(?<![\w.])((?:self\.)?st|state(?:\([^()]*\))?|(?:\w+\.)state\([^()]*\))"
FIELD = r"\.(" + "|".join(GROUND) + r")\b"


def rewrite(path: str, text: str) -> str:
    s = re.sub(RECEIVER + FIELD, r"\1.ground.\2", text)
    if path == "cg/state.py":  # CampaignState's methods read their own fields
        s = re.sub(r"(?<![\w.])self" + FIELD, r"self.ground.\1", s)
    return s


def files() -> list[Path]:
    out = [ROOT / f for f in FILES]
    for t in TREES:
        out += sorted((ROOT / t).rglob("*.py"))
    return [p for p in out if p.is_file()]


def main(argv: list[str]) -> int:
    check = "--check" in argv
    changed = []
    for p in files():
        rel = p.relative_to(ROOT).as_posix()
        text = p.read_text(encoding="utf-8")
        new = rewrite(rel, text)
        if new != text:
            changed.append(rel)
            if not check:
                p.write_text(new, encoding="utf-8")
    for rel in changed:
        print(rel)
    return 1 if check and changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
