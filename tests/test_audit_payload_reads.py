"""The audit takes event instances (issue 33 item 4): cg/app/audit.py reads a stored payload by key (`.get(KEY)`,
`[KEY]`) only where it must see the bytes as stored, in the functions named below with their reasons. Everything
else (the roll counts, the re-roll notes, `plcg receive`'s history, `audit --against`) reads the event built from
the row (`_event`).

The count is an AST walk, the same rule before and after: in each function, a name holds a payload when it is
bound (assigned, a loop's or a comprehension's target) to a payload or to a value read from one; a payload is
what `loads`, `upcast`, `_upcast_row`, `_records` or `_norm` give, a row's `[PAYLOAD]` column,
or a parameter the function is given payloads in (PARAMS). Commands (`cmd`) and a seal's opening (cg/seal's dict
of a sealed command and its events, as the fold takes it) are not payloads: each is a dict by its contract (the
opening's events are built as instances). A read is `.get(...)` on such a value, or a subscript
of one by anything but an int or a row's column name (SEQ, TYPE...)."""
from __future__ import annotations

import ast
import inspect

from cg.app import audit

# the parameters each function is given payloads (or their rows, or their rolls) in
PARAMS = {"_Dice.add": {"p"}, "_count_rolls": {"payloads"}, "_roll_key": {"p"}, "_rolls": {"p"},
          "_compare": {"payloads", "produced"}, "_drm_text": {"drm"}, "_is_roll": {"v"}, "_Held.chained_after": {"self"},
          "audit_tail": {"history"}, "_event": {"p"}, "_as_stored": {"payloads"}}
SOURCES = {"loads", "upcast", "_upcast_row", "_records", "_norm"}  # calls giving a payload
CARRY = {"zip", "enumerate", "list", "tuple", "sorted", "reversed", "iter", "_rolls"}  # a call giving what it is given
PARTS = {"get", "items", "values"}  # a method giving a part of its dict

# Where the audit reads the stored JSON by key, on purpose, and how often: it compares the bytes as stored with what
# the rules give, field by field and roll by roll, and names an edited row's every field, whatever its class would
# make of it (before issue 33 item 4's last step: these 43, and 19 more in the roll counts, the re-roll notes,
# `plcg receive`'s history and `audit --against`, now read from the events)
KEPT = {"_compare": 40, "_drm_text": 3}  # _drm_text: a stored DRM list in _compare's finding, as stored


def _tainted(node, names: set) -> bool:
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.Call):
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
        if name in SOURCES:
            return True
        if isinstance(f, ast.Attribute) and name in PARTS:
            return _tainted(f.value, names)
        return name in CARRY and any(_tainted(a, names) for a in node.args)
    if isinstance(node, ast.Subscript):
        if isinstance(node.slice, ast.Name) and node.slice.id.isupper():  # a row's column: its payload, or not one
            return node.slice.id == "PAYLOAD"
        return _tainted(node.value, names)
    if isinstance(node, (ast.BoolOp,)):
        return any(_tainted(v, names) for v in node.values)
    if isinstance(node, ast.IfExp):
        return _tainted(node.body, names) or _tainted(node.orelse, names)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return any(_tainted(e, names) for e in node.elts)
    if isinstance(node, ast.Dict):
        return any(v is not None and _tainted(v, names) for v in node.values)
    if isinstance(node, ast.Starred):
        return _tainted(node.value, names)
    if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
        return _tainted(node.elt, names)
    if isinstance(node, ast.DictComp):
        return _tainted(node.value, names)
    return False


def _targets(t) -> list[str]:
    """The names a target binds (not a container stored into: `d[k] = v` binds no name)."""
    if isinstance(t, ast.Name):
        return [t.id]
    if isinstance(t, (ast.Tuple, ast.List)):
        return [n for e in t.elts for n in _targets(e)]
    if isinstance(t, ast.Starred):
        return _targets(t.value)
    return []


def _payload_names(func, seeds: set) -> set:
    names = set(seeds)
    while True:
        before = len(names)
        for node in ast.walk(func):
            if isinstance(node, ast.Assign) and _tainted(node.value, names):
                for t in node.targets:
                    names.update(_targets(t))
            elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None \
                    and _tainted(node.value, names):
                names.update(_targets(node.target))
            elif isinstance(node, (ast.For, ast.comprehension)) and _tainted(node.iter, names):
                names.update(_targets(node.target))
        if len(names) == before:
            return names


def _is_read(node, names: set) -> bool:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        return _tainted(node.func.value, names)
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        s = node.slice
        if isinstance(s, ast.Constant) and type(s.value) is int or isinstance(s, ast.Name) and s.id.isupper() \
                or isinstance(s, ast.Slice):
            return False
        return _tainted(node.value, names)
    return False


def payload_reads(module) -> dict[str, int]:
    """{function (Class.method): how many payload reads by key it holds} of `module`, functions with none left out."""
    tree = ast.parse(inspect.getsource(module))
    funcs = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            funcs.append((node.name, node))
        elif isinstance(node, ast.ClassDef):
            funcs += [(f"{node.name}.{f.name}", f) for f in node.body if isinstance(f, ast.FunctionDef)]
    out = {}
    for name, func in funcs:
        names = _payload_names(func, PARAMS.get(name, set()))
        n = sum(_is_read(node, names) for node in ast.walk(func))
        if n:
            out[name] = n
    return out


def test_the_audit_reads_payloads_by_key_only_where_it_compares_the_stored_bytes():
    assert payload_reads(audit) == KEPT


def test_the_count_sees_a_payload_read_and_a_value_read_from_one():
    import types

    src = ("def f(store, cmd):\n"
           "    p = loads(store.text)\n"
           "    roll = p.get('roll')\n"
           "    for r in p['rolls']:\n"
           "        r['dice']\n"
           "    cmd.get('name')\n"  # a command: not a payload
           "    return roll['dice'], p[0], rows[SEQ]\n")
    mod = types.ModuleType("probe")
    ast_mod = ast.parse(src)
    funcs = {n.name: n for n in ast_mod.body}
    names = _payload_names(funcs["f"], set())
    assert {"p", "roll", "r"} <= names and "cmd" not in names
    assert sum(_is_read(n, names) for n in ast.walk(funcs["f"])) == 4
    del mod
