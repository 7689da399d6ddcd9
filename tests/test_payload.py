"""A write makes each event's payload with events/payload.py, without cattrs (issue 36 item 2: start-up); the
audit, `import` and the reads keep events/convert.py's converter. The two give the same payload: the same
keys in the same order (a key stored only when given comes last, where the converter puts it), the same
Python types (a list for a tuple of any length, a tuple for one of fixed length, a dict for a record) and so
the same stored bytes, for every event class (drawn from its own type hints) and every event of the old logs."""
from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events import payload, types as ev
from events.convert import structure, unstructure
from tests.test_events import NAMES, builds

FIXTURES = Path(__file__).parent / "fixtures"


def same(a, b) -> bool:
    """Equal, and of the same type all the way down (tuple is not list, key order counts)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def check(event) -> None:
    made, converted = payload.unstructure(event), unstructure(event)
    assert same(made, converted), (event.TYPE, made, converted)
    assert orjson.dumps(made) == orjson.dumps(converted)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_event_class_makes_the_converters_payload(name, data):
    check(data.draw(builds(ev.REGISTRY[name])))


@pytest.mark.parametrize("name", sorted(payload.OMITTED_IF_DEFAULT))
def test_a_key_stored_only_when_given_comes_last_and_only_when_given(name):
    """The omitted keys at their default are left out; given, they follow every other key."""
    cls = ev.REGISTRY[name]

    @settings(max_examples=25, deadline=None)
    @given(data=st.data())
    def run(data):
        e = data.draw(builds(cls))
        made = payload.unstructure(e)
        keys = list(made)
        omitted = [k for k in keys if k in payload.OMITTED_IF_DEFAULT[name]]
        assert keys[len(keys) - len(omitted):] == omitted
        check(e)
    run()


@pytest.mark.parametrize("path", sorted(FIXTURES.rglob("*.plcg")), ids=lambda p: p.name)
def test_every_event_of_the_old_logs_makes_its_stored_payload_again(path, tmp_path):
    """Each stored event, read back as its class, is made into the converter's payload (the stored one, as
    the release that wrote it made it, for the events whose schema has not changed since)."""
    copy = tmp_path / path.name  # a copy: opening a WAL-mode file makes side files beside it
    shutil.copyfile(path, copy)
    con = sqlite3.connect(copy)
    try:
        rows = con.execute("SELECT type, version, payload FROM events ORDER BY seq").fetchall()
    finally:
        con.close()
    assert rows
    for etype, version, text in rows:
        check(structure(etype, version, orjson.loads(text)))
