"""The step machine built from the steps (issue 33 item 1): its states are the steps, `next` is guarded by
what the step owes, and a step id is one value whether stored as text or held as a StepId."""
from __future__ import annotations

import orjson

from cg.machine import machine, walk
from cg.sequence import StepId
from cg.state import Position
from cg.steps import BY_ID, STEPS, pending
from conftest import Campaign


def test_the_machines_states_are_the_steps():
    m = machine()
    assert list(m.states) == [s.id for s in STEPS]
    assert all(m.get_state(s.id.value).step is s for s in STEPS)
    assert machine() is m  # built once per process


def test_next_is_refused_by_the_guard_while_the_step_owes(tmp_path):
    camp = Campaign(tmp_path / "c.plcg")  # the Initial Firefight at 2.2: the weather is owed
    st = camp.state()
    w = walk(st, "next")
    assert w.to is None and w.owed == pending(st) and [o["rule"] for o in w.owed] == ["2.2"]
    assert w.records == [] and st.step == StepId.WEATHER  # nothing recorded, the state untouched
    camp.run("weather")
    w = walk(camp.state(), "next")
    assert w.to == StepId.PURCHASE and w.owed == []


def test_a_step_id_is_its_stored_text():
    assert orjson.dumps({"step": StepId.CLEARANCE}) == b'{"step":"3.52"}'
    assert {"2.1": "stored"}[StepId.CP] == "stored" and BY_ID["2.1"] is BY_ID[StepId.CP]
    assert Position(step="3.52").step is StepId.CLEARANCE and f"{StepId.END}" == "end"
