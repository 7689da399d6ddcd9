"""The step machine built from the steps (issue 33 item 1): its states are the steps, `next` is guarded by
what the step owes, and a step id is one value whether stored as text or held as a StepId."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import orjson

from cg.machine import build, machine, mermaid, walk
from cg.sequence import StepId
from cg.state import Position
from cg.steps import BY_ID, STEPS, pending
from cg.steps.step import Owed, Step
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


def test_every_step_id_has_its_one_step():
    """The order is the steps' own (declared phase by phase); StepId names each of them once."""
    assert sorted(s.id for s in STEPS) == sorted(StepId)
    assert len(BY_ID) == len(STEPS)


def test_a_step_declared_after_another_is_taken_up_without_other_edits(tmp_path):
    """Issue 33, Done means: a new step is one Step object in its phase module. A throw-away 3.435,
    declared after 3.43 and owing one dr until it is made, is where `next` from 3.43 goes (3.43's
    declaration untouched), is a state of the machine built from the steps, owes its dr in `pending`
    and refuses `next` until it is made, then leads on to 3.44, and the diagram draws both edges."""
    made: list = []

    def owes(state, rules):
        owed = Owed()
        if not made:
            owed.add("promote", "3.435", "axis throw-away dr", side="axis")
        return owed

    extra = Step("3.435", "Throw-away", "3.435", owes=owes)
    at = [s.id for s in STEPS].index(StepId.HEROES)
    steps = (*STEPS[:at + 1], extra, *STEPS[at + 1:])
    assert BY_ID[StepId.HEROES].leads_to == ()  # 3.43 names no step it leads to: the one declared after it
    m = build(steps)
    assert list(m.states) == [str(s.id) for s in steps] and m.get_state("3.435").step is extra

    camp = Campaign(tmp_path / "c.plcg")
    camp.advance(1, StepId.HEROES)
    st = camp.state()
    assert walk(st, "next", m).to == "3.435"  # from 3.43, by the order of declaration
    assert walk(st, "next").to == StepId.PROMOTIONS  # the steps as shipped: no 3.435

    there = st.copy()
    there.position = there.position.to(step="3.435")
    w = walk(there, "next", m)
    assert w.to is None and [(o["rule"], o["command"]) for o in w.owed] == [("3.435", "plcg promote axis")]
    assert pending(there, extra) == w.owed
    made.append(True)
    assert walk(there, "next", m).to == StepId.PROMOTIONS  # and on to the step declared after it
    assert walk(there, "concede", m).to == StepId.END

    drawn = mermaid(m).splitlines()
    assert "  s3_43 --> s3_435: next [owes_nothing]" in drawn
    assert "  s3_435 --> s3_44: next [owes_nothing]" in drawn
    assert "  s3_43 --> s3_44: next [owes_nothing]" not in drawn


def test_the_diagram_is_the_deciding_machines():
    """The diagram is written from the machine `next` is decided by: one arrow per (source, destination),
    labelled with the triggers and the conditions of that machine's own transitions."""
    m = machine()
    arrows = {}
    for line in mermaid().splitlines():
        hit = re.fullmatch(r"  s(\S+) --> s(\S+): (.+)", line)
        if hit:
            arrows[(hit[1], hit[2])] = hit[3]
    expected = {}
    for trigger, event in m.events.items():
        for source, edges in event.transitions.items():
            for t in edges:
                names = [c.func for c in t.conditions]
                key = (source.replace(".", "_"), t.dest.replace(".", "_"))
                label = f"{trigger} [{' & '.join(names)}]" if names else trigger
                expected[key] = f"{expected[key]} | {label}" if key in expected else label
    assert arrows == expected
    assert arrows[("3_52", "end")] == "next [owes_nothing & is_last] | concede"


# a new step's module as the walk-through of docs/architecture.md writes it: its id, its Step, its event's fold
# and words (its event class, here in the same file, is declared in events/types.py in the product)
THROW_AWAY = '''
from events.types import Event, event
from cg.sequence import StepId
from cg.state import SIDES, Done
from cg.steps.registry import on, words
from cg.steps.step import Owed, Step
from cg.steps.wording import side_words

HEROES_DR = StepId.declare("HEROES_DR", "3.435")


@event("heroes_dr_rolled", rule="3.435")
class HeroesDrRolled(Event):
    side: str
    dr: int


def _owes(state, rules):
    owed = Owed()
    for side in SIDES:
        if Done("heroes-dr", side) not in state.reph.done:
            owed.add("promote", "3.435", f"{side} throw-away dr", side=side)
    return owed


STEP = Step(HEROES_DR, "Throw-away", "3.435", owes=_owes)


@on("heroes_dr_rolled")
def _rolled(st, e: HeroesDrRolled):
    st.reph.done.add(Done("heroes-dr", e.side))


@words("heroes_dr_rolled")
def _rolled_words(e: HeroesDrRolled) -> str:
    return f"{side_words(e)} throw-away dr {e.dr} (3.435)"
'''

PLAY_IT = '''
import json, sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
import throw_away as new
from cg.app.ledger import Ledger
from cg.evolve import evolve
from cg.machine import build, walk
from cg.sequence import StepId, step_id
from cg.steps import STEPS, pending
from projections.words import summary

at = [s.id for s in STEPS].index(StepId.HEROES)
m = build((*STEPS[:at + 1], new.STEP, *STEPS[at + 1:]))
st = Ledger.create(sys.argv[3], "sample", "tests", None).state()
st.position = st.position.to(step=StepId.HEROES)
st = evolve(st, "step_left", {"step": "3.43", "to": "3.435", "firefight": 1})
out = {"step": st.step, "is_member": st.step is new.HEROES_DR and step_id("3.435") is new.HEROES_DR,
       "owed": [o["what"] for o in pending(st, new.STEP)], "next_while_owed": walk(st, "next", m).to}
for side, dr in (("axis", 4), ("allied", 2)):
    st = evolve(st, "heroes_dr_rolled", {"side": side, "dr": dr})
out["owed_after"] = [o["what"] for o in pending(st, new.STEP)]
out["next_after"] = walk(st, "next", m).to
out["words"] = summary("heroes_dr_rolled", {"side": "allied", "dr": 2})
print(json.dumps(out))
'''


def test_a_step_declared_with_its_events_fold_and_words_in_one_module_is_folded_and_worded(tmp_path):
    """Issue 33 item 4 and Done means: a new step's module declares its id (`StepId.declare`), its `Step`, and
    its event's fold (`@on`) and words (`@words`); nothing else is edited. In a fresh interpreter (the declared
    id, class, fold and words stay out of this one): the step left for is a StepId member, its fold records
    each side's dr so that it owes, then owes nothing and `next` leads on to 3.44, and `log`'s words say it."""
    (tmp_path / "throw_away.py").write_text(THROW_AWAY)
    root = str(Path(__file__).resolve().parent.parent)
    r = subprocess.run([sys.executable, "-c", PLAY_IT, str(tmp_path), root, str(tmp_path / "c.plcg")],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["step"] == "3.435" and out["is_member"] is True
    assert out["owed"] == ["axis throw-away dr", "allied throw-away dr"] and out["next_while_owed"] is None
    assert out["owed_after"] == [] and out["next_after"] == StepId.PROMOTIONS
    assert out["words"] == "Allied throw-away dr 2 (3.435)"
