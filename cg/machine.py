"""The step machine: `transitions` built once per process from the steps of cg/steps, and the Mermaid
diagram drawn from the same definition (`plcg diagram`, docs/steps.md).

- Its states are the steps: each state carries its `Step` (`machine().get_state("2.3").step`).
- `next` is a trigger along each step's `leads_to`, guarded by `owes_nothing` (the step's `owes` and
  play by email's, `pending`), with the rules' conditions on the edges (Idle 2.41, the Initial
  Firefight, the last firefight or the CG Objectives, revision 2's weather in every firefight);
  `concede` leads from any step to the CG's end.
- Leaving by `next` is a callback: the step's `on_leave` (what it records by itself) runs as the
  transition's `before`.

The machine decides and never holds a campaign: a `next` or `concede` being decided is one `Walk`, the
model the trigger is fired on for that decision and then dropped; the command writes the events (the
step left is folded from its `step_left`, cg/evolve.py), so nothing here is rolled back when a write
fails. The folded state carries the step, so replay never drives the machine. Built on the first `next` or
`concede` a process decides: `status` and the other commands never import transitions.
"""
from __future__ import annotations

import re

from cg import caches, revision
from cg.sequence import StepId, step_id
from cg.state import CampaignState
from cg.steps import BY_ID, STEPS, pending
from cg.victory import objectives_fulfilled


def _next(source: StepId, dest: StepId, *conditions: str) -> dict:
    """A `next` edge: taken when the step owes nothing and `conditions` hold; leaving records its events."""
    return {"trigger": "next", "source": source.value, "dest": dest.value,
            "conditions": ["owes_nothing", *conditions], "before": "leave"}


# `next` from each step along its edges (Step.leads_to), in order: the first whose conditions hold is
# taken; `concede` from any step to the CG's end
TRANSITIONS = [_next(s.id, dest, *conditions) for s in STEPS for dest, *conditions in s.leads_to]
TRANSITIONS.append({"trigger": "concede", "source": [s.id.value for s in STEPS if s.id != StepId.END],
                    "dest": StepId.END.value})
_STATES = [{"name": s.id.value, "step": s} for s in STEPS]


class Walk:
    """One `next` or `concede` being decided: the machine's model, reading the campaign's state.

    After the trigger: `to`, the step it leads to (None: `next` refused, the step owes `owed`), and
    `records`, what leaving recorded (the left step's `on_leave`)."""

    def __init__(self, state: CampaignState):
        self.st = state
        self.rules = revision.of(state)
        self.owed: list | None = None
        self.records: list = []
        self.to: StepId | None = None
        self.state: str = ""

    # the guard and the conditions on the edges
    def owes_nothing(self) -> bool:
        if self.owed is None:
            self.owed = pending(self.st)
        return not self.owed

    def is_idle(self) -> bool:
        return self.st.idle

    def is_initial(self) -> bool:
        return self.st.initial

    def is_last(self) -> bool:
        # ruling R74: a CG Objective fulfilled after this firefight (its RePh complete) ends the CG too (1.3)
        return self.st.last_firefight or bool(objectives_fulfilled(self.st))

    def weather_every(self) -> bool:
        return self.rules.weather_every_firefight  # rules revision 2 (ruling R27): 2.2 in every firefight

    # the callback of leaving by `next`
    def leave(self) -> None:
        self.records += BY_ID[self.st.step].on_leave(self.st, self.rules)


def machine():
    """The step machine, built on first use, once per Caches (the ledger's: built by the first `next` or
    `concede` it decides)."""
    c = caches.current()
    if c.machine is None:
        # lazy: `plcg status` and the step commands other than next/concede skip importing
        # transitions and building the machine (~10 ms of their start, -X importtime)
        from transitions import Machine, State  # lazy: transitions (~5 ms) only for next/concede and `plcg diagram`

        class StepState(State):
            """A state of the machine: one step (`step`, its Step)."""

            def __init__(self, *args, step=None, **kwargs):
                super().__init__(*args, **kwargs)
                self.step = step

        class StepMachine(Machine):
            state_cls = StepState

        c.machine = StepMachine(
            model=None,
            states=_STATES,
            transitions=TRANSITIONS,
            initial=None,
            auto_transitions=False,  # no to_<state>(): the step order cannot be skipped
            ignore_invalid_triggers=False,
        )
    return c.machine


def walk(state: CampaignState, trigger: str = "next") -> Walk:
    """`trigger` ("next" or "concede") decided from the state's step by the machine: the Walk says
    where it leads (`to`), or what the step still owes (`owed`), and what leaving recorded."""
    w = Walk(state)
    w.state = str(state.step)  # the model's place in the machine (transitions' model_attribute)
    # the trigger fired on this one model, never registered: add_model would bind every trigger and a
    # test per state to it, 80 us a `next` to be thrown away
    if machine().events[trigger].trigger(w):
        w.to = step_id(w.state)
    return w


def mermaid() -> str:
    """The step machine drawn by transitions itself (Mermaid stateDiagram-v2, no graphviz), from the
    same states and edges as the machine."""
    # lazy: only `plcg diagram` (and docs/steps.md's test) draw; GraphMachine's import is theirs alone
    from transitions.extensions import GraphMachine  # lazy: ~40 ms (graph support) only for `plcg diagram`

    class Drawn:
        """The model of the drawing (never driven)."""

    gm = GraphMachine(
        model=Drawn(),
        states=[s["name"] for s in _STATES],
        transitions=TRANSITIONS,
        initial=StepId.WEATHER.value,
        auto_transitions=False,
        graph_engine="mermaid",
        show_conditions=True,
        title="TITLE",  # put in below: the id rewriting would take its "2.5" for a step
    )
    text = gm.get_graph().draw(None)
    # Mermaid ids may not hold dots: draw "2.1" as the id s2_1 and keep "2.1" as its label.
    ident = r"(?<![\w.\"])(\d\.\d+|end)(?![\w.\"])"
    text = re.sub(ident, lambda m: "s" + m.group(1).replace(".", "_"), text)
    text = re.sub(r"(?m)^(\s*)Class ", r"\1class ", text)  # Mermaid's keyword is lower case
    return text.replace("TITLE", "PL 2.5 step order", 1)
