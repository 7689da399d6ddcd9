"""One schema per event (issue 22.3): the fold's handlers (cg/evolve.py) take the event classes of
events/types.py, built from the stored payload by a constructor made for each type
(events/stored.py), and read nothing but the fields of their class."""
from __future__ import annotations

import ast
import inspect
import textwrap

import attrs
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cg import evolve
from events.convert import unstructure
from events.stored import build
from events.types import REGISTRY
from test_events import builds


def _reads(fn) -> tuple[set[str], set[str]]:
    """(the attributes a handler reads of its event, the keys it reads of it as a dict)."""
    func = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
    params = [a.arg for a in func.args.args]
    if len(params) < 2:
        return set(), set()
    p = params[1]
    attrs_read, keys = set(), set()
    for node in ast.walk(func):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == p:
            attrs_read.add(node.attr)
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == p:
            keys.add(ast.unparse(node.slice))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == p:
            keys.add(ast.unparse(node.args[0]) if node.args else "")
    return attrs_read, keys


def test_every_handled_type_has_its_class_and_its_fold():
    assert set(evolve._TYPED) <= set(REGISTRY), set(evolve._TYPED) - set(REGISTRY)
    assert set(evolve.handler_table()) == set(evolve._TYPED)


@pytest.mark.parametrize("etype", sorted(evolve._TYPED))
def test_a_handler_reads_only_the_fields_of_its_event_class(etype):
    fields = {f.name for f in attrs.fields(REGISTRY[etype])}
    read, keys = _reads(evolve._TYPED[etype])
    assert read <= fields, f"{etype}: the fold reads {sorted(read - fields)}, not fields of {REGISTRY[etype].__name__}"
    assert not keys, f"{etype}: the fold reads its event as a dict ({sorted(keys)}), not as {REGISTRY[etype].__name__}"


def test_the_check_sees_a_field_the_class_lacks_and_a_dict_read():
    def _probe(st, p):
        return p.side, p.nonsense, p["side"]

    assert _reads(_probe) == ({"side", "nonsense"}, {"'side'"})


@pytest.mark.parametrize("name", sorted(REGISTRY))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_fold_builds_each_event_class_from_its_stored_payload(name, data):
    """What the fold is given is the event as it was decided: its class, every field (nested Rolls,
    unit references... as their classes), the payload it was built from left as it was stored."""
    event = data.draw(builds(REGISTRY[name]))
    stored = orjson.loads(orjson.dumps(unstructure(event)))
    before = orjson.dumps(stored)
    got = build(REGISTRY[name], stored)
    assert type(got) is REGISTRY[name]
    assert orjson.dumps(unstructure(got)) == orjson.dumps(unstructure(event))
    for f in attrs.fields(REGISTRY[name]):  # a nested value is its class (a tuple of plain values stays a list)
        v, w = getattr(event, f.name), getattr(got, f.name)
        if attrs.has(type(v)):
            assert type(w) is type(v), f.name
        elif isinstance(v, tuple) and v and attrs.has(type(v[0])):
            assert [type(x) for x in w] == [type(x) for x in v], f.name
    assert orjson.dumps(stored) == before


def test_a_key_its_writer_left_out_takes_the_class_default_and_a_missing_field_fails_where_read():
    got = build(REGISTRY["leader_rolled"], {"side": "axis", "purchase": None, "unit": None, "generated": True,
                                            "roll": {"dice": [3], "drm": [], "final": 3, "table": "3.45", "row": "3",
                                                     "outcome": None}})
    assert got.hex is None and got.roll.source is None  # omitted when None (events/convert.py, ruling R32)
    bare = build(REGISTRY["unit_set_up"], {"side": "axis", "hex": "A1", "hip": False})
    with pytest.raises(AttributeError):
        bare.unit  # noqa: B018 (an edited row: the handler's read fails, and the fold names the row)
