"""The mechanical half of the typed CampaignState (issue 22 item 2): every access to the state's old
flat fields and string keys rewritten to the typed parts of cg/state.py. Idempotent: run it again on
code merged from elsewhere and it rewrites only what is still in the old form.

    python tools/typed_rewrite.py            # rewrites the tree in place, prints the files changed
    python tools/typed_rewrite.py --check    # exit 1 (and the files) if anything is left to rewrite

What it rewrites (in cg/, events/, projections/, cli.py, tests/, bench/):
1. The RePh record: `st.done`, `state.cleared`, `c.state().may_generate`... -> `st.reph.done` ...
   (the fields of cg.state.Reph, on a receiver named `st` or `state`, or a call `state(...)`).
2. The step's records: a string key "cp:axis" / f"set:{side}:{u.id}" tested against, added to or
   discarded from `.reph.done` (or given to reorganization's `_once`) -> `Done("cp", side)`,
   `Done("set", side, u.id)` (cg.state.Done; "evacuate:ID" has no side; more parts: a tuple `of`);
   the few readers that parsed the strings back (`k.startswith("cr-owed:")`...) by the table EXACT.
3. `f"{hx}:{item}"` of `.reph.cleared` -> `(hx, item)`; `f"{side}:{n}"` of `.reph.patrol_units` -> `(side, n)`.
4. Play by email: `X.pbem["key"]` / `X.pbem.get("key"[, default])` -> `X.pbem.key` (cg.state.Pbem),
   `(X.pbem or {}).get("key")` -> `getattr(X.pbem, "key", None)`,
   and the same on a local `pb = X.pbem` (in the files that bind one), and cg/pbem.py's `pbem[...]`
   parameter of side_of_key.
5. cg/seal.py's apply_sealed / apply_revealed take the `Sealed` / `SealsRevealed` event (the fold
   takes the event classes): `p["key"]` / `p.get("key")` -> `p.key` in those two functions.
Then `from cg.state import Done` is added where `Done(` is now used and not imported.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREES = ("cg", "events", "projections", "tests", "bench")
FILES = ("cli.py",)

REPH = ("done", "cleared", "ap_failed", "patrols_done", "patrols_to_return", "patrol_units", "hardened_now",
        "promotions", "leader_result", "generated", "may_generate", "repairs_owed")
RECEIVER = r"(?<![\w.])((?:self\.)?st|state(?:\([^()]*\))?|(?:\w+\.)state\([^()]*\))"
NO_SIDE = ("evacuate",)  # "evacuate:ID": the leader, no side

# readers of the old strings, rewritten whole (file, old, new)
EXACT = [
    ("cg/evolve.py",
     '''    for key in [k for k in st.reph.done if k.startswith(f"oba-roll:{p.side}:")]:
        # ruling R14 (rules revision 3): the -1 of 2.351 goes with the Attack Option bought in this 2.3, not
        # with the order of the commands: an OBA DR made before it is read again, its final DR less 1
        _, side, final, pid = key.split(":", 3)
''',
     '''    for key in [k for k in st.reph.done if k.what == "oba-roll" and k.side == p.side]:
        # ruling R14 (rules revision 3): the -1 of 2.351 goes with the Attack Option bought in this 2.3, not
        # with the order of the commands: an OBA DR made before it is read again, its final DR less 1
        side, (final, pid) = key.side, key.of
'''),
    ("cg/evolve.py",
     '''    owed = next(k for k in st.reph.done if k.startswith(f"disease-owed:{side}:"))
    st.reph.done.discard(owed)
    left = int(owed.rsplit(":", 1)[1]) - (2 if u.kind == Kind.SQUAD else 1)
''',
     '''    owed = next(k for k in st.reph.done if k.what == "disease-owed" and k.side == side)
    st.reph.done.discard(owed)
    left = owed.of - (2 if u.kind == Kind.SQUAD else 1)
'''),
    ("cg/steps.py",
     '''        for key in sorted(k for k in state.reph.done if k.startswith("cr-owed:")):  # 3.52 dagger (revision 3)
            _, side, hx = key.split(":", 2)
''',
     '''        for key in sorted(k for k in state.reph.done if k.what == "cr-owed"):  # 3.52 dagger (revision 3)
            side, hx = key.side, key.of
'''),
    ("cg/steps.py",
     '''    key = next((k for k in state.reph.done if k.startswith(f"disease-owed:{side}:")), None)
    return int(key.rsplit(":", 1)[1]) if key else 0
''',
     '''    key = next((k for k in state.reph.done if k.what == "disease-owed" and k.side == side), None)
    return key.of if key else 0
'''),
    ("cg/commands/casualties.py",
     '''    owed = sorted(k for k in st.reph.done if k.startswith(f"cr-owed:{side}:"))''',
     '''    owed = sorted(k for k in st.reph.done if k.what == "cr-owed" and k.side == side)'''),
    ("cg/commands/casualties.py",
     '''hex=owed[0].split(":", 2)[2]''', '''hex=owed[0].of'''),
    ("cg/commands/reorganization.py",
     '''def _once(st: CampaignState, key: str, what: str, rule: str):''',
     '''def _once(st: CampaignState, key: Done, what: str, rule: str):'''),
]


def _parts(body: str) -> list[str]:
    """An f-string's body split at the colons outside its {} fields."""
    out, cur, depth = [], "", 0
    for ch in body:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == ":" and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return out + [cur]


def _expr(part: str, f: bool) -> str:
    """One part of a key as a Python expression: a field alone is its expression, text a string."""
    if f and re.fullmatch(r"\{[^{}]+\}", part):
        return part[1:-1]
    if f and "{" in part:
        return f'f"{part}"'
    return repr(part).replace("'", '"')


def done_key(literal: str) -> str:
    """`f"set:{side}:{u.id}"` -> `Done("set", side, u.id)`."""
    f = literal.startswith("f")
    parts = _parts(literal[2:-1] if f else literal[1:-1])
    what = _expr(parts[0], f)
    rest = [_expr(x, f) for x in parts[1:]]
    if parts[0] in NO_SIDE:
        return f"Done({what}, None, {rest[0]})" if rest else f"Done({what})"
    if not rest:
        return f"Done({what})"
    if len(rest) == 1:
        return f"Done({what}, {rest[0]})"
    if len(rest) == 2:
        return f"Done({what}, {rest[0]}, {rest[1]})"
    return f"Done({what}, {rest[0]}, ({', '.join(rest[1:])}))"


def pair(literal: str) -> str:
    """`f"{hx}:{item}"` -> `(hx, item)`."""
    a, b = _parts(literal[2:-1])
    return f"({_expr(a, True)}, {_expr(b, True)})"


LIT = r'(f?"[^"\n]*")'


def rewrite(path: str, text: str) -> str:
    s = text
    # 1. the RePh record
    s = re.sub(RECEIVER + r"\.(" + "|".join(REPH) + r")\b", r"\1.reph.\2", s)
    # 2. the step's records
    s = re.sub(LIT + r"(\s+(?:not\s+)?in\s+" + RECEIVER + r"\.reph\.done\b)",
               lambda m: done_key(m.group(1)) + m.group(2), s)
    s = re.sub(r"(\.reph\.done\.(?:add|discard)\()" + LIT + r"\)", lambda m: m.group(1) + done_key(m.group(2)) + ")", s)
    s = re.sub(r"(\b_once\(st, )" + LIT, lambda m: m.group(1) + done_key(m.group(2)), s)
    for file, old, new in EXACT:
        if path == file:
            s = s.replace(old, new)
    # 3. the RePh record's other keys
    s = re.sub(r'(f"\{[^{}"]+\}:\{[^{}"]+\}")(\s+(?:not\s+)?in\s+' + RECEIVER + r"\.reph\.cleared\b)",
               lambda m: pair(m.group(1)) + m.group(2), s)
    s = re.sub(r'(\.reph\.cleared\.add\()(f"\{[^{}"]+\}:\{[^{}"]+\}")\)', lambda m: m.group(1) + pair(m.group(2)) + ")", s)
    s = re.sub(r'(\.reph\.patrol_units(?:\[|\.get\())(f"\{[^{}"]+\}:\{[^{}"]+\}")',
               lambda m: m.group(1) + pair(m.group(2)), s)
    # 4. play by email
    default = r'(?:, (?:\{\}|\[\]|\(\)|None|False|0))?'
    s = re.sub(r'\((\w+(?:\.\w+)*(?:\([^()]*\))?)\.pbem or \{\}\)\.get\("(\w+)"\)', r'getattr(\1.pbem, "\2", None)', s)
    s = re.sub(r'\.pbem\["(\w+)"\]', r".pbem.\1", s)
    s = re.sub(r'\.pbem\.get\("(\w+)"' + default + r"\)", r".pbem.\1", s)
    if re.search(r"\bpb = [\w.()]*\.pbem\b", s):
        s = re.sub(r'\bpb\["(\w+)"\]', r"pb.\1", s)
        s = re.sub(r'\bpb\.get\("(\w+)"' + default + r"\)", r"pb.\1", s)
    if path == "cg/pbem.py":
        s = re.sub(r'(?<![\w.])pbem\["(\w+)"\]', r"pbem.\1", s)
    # 5. the seal's fold takes its event
    if path == "cg/seal.py":
        s = re.sub(r"def (apply_sealed|apply_revealed)\(.*?(?=\n(?:def |\S))", _event_fn, s, flags=re.S)
    if "Done(" in s and path != "cg/state.py" and not re.search(r"^from cg\.state import[^\n]*\bDone\b", s, re.M):
        s = _import_done(s)
    return s


def _event_fn(m: re.Match) -> str:
    fn = m.group(0)
    fn = fn.replace("p: dict", "p", 1)
    fn = re.sub(r'\bp\["(\w+)"\]', r"p.\1", fn)
    return re.sub(r'\bp\.get\("(\w+)"\)', r"p.\1", fn)


def _import_done(s: str) -> str:
    """`from cg.state import Done` after the last top-level import before the module's first def/class."""
    lines = s.split("\n")
    last, i = None, 0
    while i < len(lines) and not lines[i].startswith(("def ", "class ", "@")):
        if lines[i].startswith(("from ", "import ")):
            while "(" in lines[i] and ")" not in lines[i]:  # a parenthesised import: to its end
                i += 1
            last = i
        i += 1
    at = 0 if last is None else last + 1
    for j in range(at, i):  # a script that puts the tree on sys.path first (bench/): after that
        if lines[j].startswith("if ") and "sys.path" in lines[j] and j + 1 < len(lines) and "sys.path" in lines[j + 1]:
            at = j + 2
    late = any(x.startswith("if ") for x in lines[:at])
    lines.insert(at, "from cg.state import Done" + ("  # noqa: E402" if late else ""))
    return "\n".join(lines)


def files() -> list[Path]:
    out = [ROOT / f for f in FILES]
    for t in TREES:
        out += sorted((ROOT / t).rglob("*.py"))
    # test_typed_state.py writes the old forms on purpose (the check that finds them)
    return [p for p in out if p.is_file() and p.name not in ("typed_rewrite.py", "test_typed_state.py")]


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
