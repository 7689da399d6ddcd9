"""The audit's canonical text of a decided event (cg/app/audit.py `_text`, issue 36 item 3): play by email's events
that hold the JSON a command or an opening was given as (a reveal's openings, a proposal's command) are written
from their fields as they stand, without the converter making each value again; the text is the converter's,
byte for byte, on every such row of a campaign by email, and a value orjson cannot write as such goes the
converter's way."""
from __future__ import annotations

import functools
import sqlite3
from pathlib import Path

import attrs
import pytest

from cg.app import audit
from events.codec import canonical, loads
from events.convert import converter
from events.roll import Roll
from events.stored import build
from events.types import REGISTRY

FIXTURE = Path(__file__).parent / "fixtures" / "pbem-records" / "axis.plcg"


def _rows() -> list[tuple[str, str]]:
    c = sqlite3.connect(FIXTURE)
    try:
        return c.execute("SELECT type, payload FROM events WHERE type IN (%s) ORDER BY seq"
                         % ",".join("?" * len(audit._AS_GIVEN)), sorted(audit._AS_GIVEN)).fetchall()
    finally:
        c.close()


def test_every_reveal_and_proposal_of_a_campaign_by_email_is_written_as_the_converter_writes_it():
    hook = functools.cache(converter.get_unstructure_hook)
    rows = _rows()
    assert {t for t, _ in rows} >= {"seals_revealed", "fact_proposed", "fact_confirmed"}
    for etype, text in rows:
        e = build(REGISTRY[etype], loads(text))
        assert audit._text(e, hook) == canonical(hook(e.__class__)(e)) == text.encode(), etype


def _odd(value):
    """A proposal whose command holds `value` beside the JSON it was given as."""
    etype, text = next(r for r in _rows() if r[0] == "fact_proposed")
    e = build(REGISTRY[etype], loads(text))
    return attrs.evolve(e, command={**e.command, "odd": value})


def test_an_attrs_value_goes_the_converters_way():
    hook = functools.cache(converter.get_unstructure_hook)
    odd = _odd(Roll(dice=(3, 4), drm=(), final=7, table="t", row=1, outcome=None, manual=False))
    assert audit._text(odd, hook) == canonical(hook(odd.__class__)(odd))
    assert b'"dice":[3,4]' in audit._text(odd, hook)


@pytest.mark.parametrize("value", [{("a", "b")}, {1: "a"}])
def test_a_value_neither_way_writes_is_refused_as_the_converters_way_refuses_it(value):
    hook = functools.cache(converter.get_unstructure_hook)
    odd = _odd(value)
    with pytest.raises(TypeError):
        canonical(hook(odd.__class__)(odd))
    with pytest.raises(TypeError):
        audit._text(odd, hook)
