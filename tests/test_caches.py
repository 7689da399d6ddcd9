"""Speed behind one seam (issue 33 item 7): the rules' memos belong to the ledger's caches (cg/caches.py),
never to a module global of cg/ written at run time."""
from __future__ import annotations

import ast

from tests.test_layers import modules

from cg import caches
from cg.app.ledger import Ledger

MUTATORS = {"append", "extend", "clear", "update", "setdefault", "pop", "popitem", "add", "discard", "remove",
            "insert"}
# filled at import by the decorators that register a command or a fold handler: registries, not memos
REGISTRIES = {"cg.commands.base": {"HANDLERS", "STEPS_OF"}, "cg.evolve": {"HANDLERS"},
              "cg.steps.registry": {"FOLDS", "WORDS"},
              "cg.state": {"_CLONES"}}  # a class's generated clone, made when a copy first meets it (start-up)


def module_memos(source: str) -> set[str]:
    """What a module keeps at module level and writes from inside a function: a container bound at module
    level and then item-assigned, sliced or mutated in a function (a memo filled lazily), a `global`
    statement, or a module function decorated with a cache (functools.cache / lru_cache)."""
    tree = ast.parse(source)
    mutable = set()
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)) or (
                isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("dict", "list", "set")):
            mutable |= {t.id for t in targets if isinstance(t, ast.Name)}
    found = set()
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if fn in tree.body:
            found |= {f"@{ast.unparse(d)} {fn.name}" for d in fn.decorator_list if "cache" in ast.unparse(d)}
        for n in ast.walk(fn):
            if isinstance(n, ast.Global):
                found |= {f"global {x}" for x in n.names}
            elif isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                    if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in mutable:
                        found.add(t.value.id)
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in MUTATORS \
                    and isinstance(n.func.value, ast.Name) and n.func.value.id in mutable:
                found.add(n.func.value.id)
    return found


def test_cg_keeps_no_memo_in_a_module_global():
    found = {name: sorted(module_memos(path.read_text()) - REGISTRIES.get(name, set()))
             for name, path in modules().items() if name.split(".")[0] == "cg"}
    assert {k: v for k, v in found.items() if v} == {}


def test_the_walk_finds_each_kind_of_memo():
    probe = '''
import functools
_SEEN: dict = {}
_LAST = [None, None]
_ONE = None


@functools.lru_cache(maxsize=8)
def built(x):
    return x


def memo(k):
    global _ONE
    _ONE = k
    _LAST[:] = (k, k)
    return _SEEN.setdefault(k, k)
'''
    assert module_memos(probe) == {"@functools.lru_cache(maxsize=8) built", "global _ONE", "_LAST", "_SEEN"}


def test_the_ledger_owns_its_caches(campaign):
    """A ledger given its caches keeps the card and the map's pictures there; another ledger with caches of
    its own reads the same campaign to the same state without them."""
    c = campaign()
    path = c.path
    c.close()
    own, other = caches.Caches(), caches.Caches()
    a = Ledger(path, caches=own)
    try:
        st = a.state()
        mc = st.map_control()
        assert a.caches is own and caches.current() is own
        assert own.last_control[2] is mc and list(own.grids.values()) == [st.grid()]
        card = a._card()  # the card a snapshot is loaded with, parsed once
        assert list(own.cards.values()) == [card] and a._card() is card
    finally:
        a.close()
    b = Ledger(path, caches=other)
    try:
        st2 = b.state()
        assert st2.map_control() is not mc and st2.map_control().hexes == mc.hexes
        assert not other.cards and b._card() is not card and b._card() == card
    finally:
        b.close()
    later = Ledger(path)  # without caches of its own: the context's, the last ledger's
    try:
        assert later.caches is other
    finally:
        later.close()


def test_the_web_pages_history_keeps_one_caches_for_the_ledgers_it_opens_in_any_thread(campaign):
    """History (the web page's) opens a ledger per read, from the page's threads: they share its caches, so
    the card and the map's pictures are made once per page, not once per request or thread."""
    import threading

    from cg.app.history import History

    c = campaign()
    path = c.path
    c.close()
    h = History(path)
    seen = []

    def read():
        led = h.ledger()
        try:
            led.state().map_control()
            seen.append(led.caches)
        finally:
            led.close()

    read()
    t = threading.Thread(target=read)
    t.start()
    t.join()
    assert seen == [h.caches, h.caches] and h.caches.control
