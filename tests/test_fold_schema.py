"""One schema per event (issue 22.3): the fold's handlers (cg/evolve.py) read a stored payload by the
field names of its event class in events/types.py, and nothing else. The fold keeps reading dicts (a
replay pays for no structuring of 100k events), so this test is what ties each handler to its class:
every key a handler reads from its payload, `p["key"]` or `p.get("key")`, is a field of the class its
event type names, and every handler's type has a class."""
from __future__ import annotations

import ast
import inspect
import textwrap

import attrs
import pytest

from cg import evolve
from events.types import REGISTRY


def _payload_keys(fn) -> set[str]:
    src = textwrap.dedent(inspect.getsource(fn))
    tree = ast.parse(src)
    func = tree.body[0]
    params = [a.arg for a in func.args.args]
    if len(params) < 2:
        return set()
    p = params[1]
    keys = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == p \
                and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            keys.add(node.slice.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == p and node.args \
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            keys.add(node.args[0].value)
    return keys


def test_every_handled_type_has_its_class():
    assert set(evolve.HANDLERS) <= set(REGISTRY), set(evolve.HANDLERS) - set(REGISTRY)


@pytest.mark.parametrize("etype", sorted(evolve.HANDLERS))
def test_a_handler_reads_only_the_fields_of_its_event_class(etype):
    fields = {f.name for f in attrs.fields(REGISTRY[etype])}
    read = _payload_keys(evolve.HANDLERS[etype])
    assert read <= fields, f"{etype}: the fold reads {sorted(read - fields)}, not fields of {REGISTRY[etype].__name__}"


def test_the_check_sees_a_key_the_class_lacks():
    def _probe(st, p):
        return p["side"], p.get("nonsense")

    assert _payload_keys(_probe) == {"side", "nonsense"}
