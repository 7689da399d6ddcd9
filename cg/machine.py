"""The step machine: `transitions` built once per process from the steps of cg/steps, and the Mermaid
diagram drawn from that same machine's states and edges (`plcg diagram`, docs/steps.md).

- Its states are the steps: each state carries its `Step` (`machine().get_state("2.3").step`).
- `next` is a trigger along each step's edges (`cg/steps.leads`: its `leads_to`, then the step declared
  after it), guarded by `owes_nothing` (the step's `owes` and play by email's, `pending`), with the rules'
  conditions on the edges (Idle 2.41, the Initial Firefight, the last firefight or the CG Objectives,
  revision 2's weather in every firefight); `concede` leads from any step to the CG's end.
- Leaving by `next` is a callback: the step's `on_leave` (what it records by itself, its function in
  cg/steps/leaving.py) runs as the transition's `before`.

The machine decides and never holds a campaign: a `next` or `concede` being decided is one `Walk`, the
model the trigger is fired on for that decision and then dropped; the command writes the events (the
step left is folded from its `step_left`, cg/evolve.py), so nothing here is rolled back when a write
fails. The folded state carries the step, so replay never drives the machine. Built on the first `next` or
`concede` a process decides: `status` and the other commands never import transitions. The diagram is
written from the deciding machine itself (its states, its events' transitions and their conditions), so
it cannot drift from it, and neither `next` nor `plcg diagram` imports transitions' graph support.
"""
from __future__ import annotations

from typing import cast

from cg import caches
from cg.rules import rules_for
from cg.sequence import StepId, step_id
from cg.state import CampaignState
from cg.steps import STEPS, leads, leaving, pending
from cg.steps.step import Step
from cg.victory import objectives_fulfilled

START = StepId.WEATHER  # where a campaign starts: the Initial Firefight at 2.2 (1.1); the diagram's [*]


def transitions_of(steps: tuple[Step, ...]) -> list[dict]:
    """The machine's edges: `next` from each step along its edges (cg/steps.leads), in order, the first
    whose conditions hold taken, each guarded by `owes_nothing` and recording what leaving records
    (`before`); `concede` from any step to the CG's end."""
    edges = leads(steps)
    out = [{"trigger": "next", "source": str(s.id), "dest": str(dest), "conditions": ["owes_nothing", *conditions],
            "before": "leave"} for s in steps for dest, *conditions in edges[s.id]]
    out.append({"trigger": "concede", "source": [str(s.id) for s in steps if s.id != StepId.END],
                "dest": StepId.END.value})
    return out


class Walk:
    """One `next` or `concede` being decided: the machine's model, reading the campaign's state.

    After the trigger: `to`, the step it leads to (None: `next` refused, the step owes `owed`), and
    `records`, what leaving recorded (the left step's `on_leave`)."""

    def __init__(self, state: CampaignState, step: Step | None):
        self.st = state
        self.step = step  # the Step the campaign stands at (None: a step no release knows)
        self.rules = rules_for(state)
        self.owed: list | None = None
        self.records: list = []
        self.to: StepId | None = None
        self.state: str = ""

    # the guard and the conditions on the edges
    def owes_nothing(self) -> bool:
        if self.owed is None:
            self.owed = pending(self.st, self.step)
        return not self.owed

    def is_idle(self) -> bool:
        return self.st.idle

    def is_initial(self) -> bool:
        return self.st.initial

    def is_last(self) -> bool:
        # ruling R74: a CG Objective fulfilled after this firefight (its RePh complete) ends the CG too (1.3)
        return self.st.last_firefight or bool(objectives_fulfilled(self.st))

    def weather_every(self) -> bool:
        return self.rules.visits_weather(self.st.initial)  # rules revision 2 (ruling R27): 2.2 in every firefight

    # the callback of leaving by `next`
    def leave(self) -> None:
        step = cast(Step, self.step)  # left only from a step this release knows (None: its AttributeError, as before)
        if step.on_leave:
            self.records += getattr(leaving, step.on_leave)(self.st, self.rules)


def machine():
    """The step machine, built on first use, once per Caches (the ledger's: built by the first `next` or
    `concede` it decides)."""
    c = caches.current()
    if c.machine is None:
        c.machine = build(STEPS)
    return c.machine


def build(steps: tuple[Step, ...]):
    """The step machine of `steps` (in the order of the sequence): states the steps, edges theirs."""
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

    return StepMachine(
        model=None,
        states=[{"name": str(s.id), "step": s} for s in steps],
        transitions=transitions_of(steps),
        initial=None,
        auto_transitions=False,  # no to_<state>(): the step order cannot be skipped
        ignore_invalid_triggers=False,
    )


def walk(state: CampaignState, trigger: str = "next", m=None) -> Walk:
    """`trigger` ("next" or "concede") decided from the state's step by the machine (`m`: the step
    machine unless told): the Walk says where it leads (`to`), or what the step still owes (`owed`),
    and what leaving recorded."""
    m = machine() if m is None else m
    here = m.states.get(str(state.step))
    w = Walk(state, here.step if here is not None else None)
    w.state = str(state.step)  # the model's place in the machine (transitions' model_attribute)
    # the trigger fired on this one model, never registered: add_model would bind every trigger and a
    # test per state to it, 80 us a `next` to be thrown away
    if m.events[trigger].trigger(w):
        w.to = step_id(w.state)
    return w


_STYLES = (  # the node classes of the diagram (the ones transitions' own Mermaid drawing wrote)
    "classDef s_default fill:white,color:black", "classDef s_inactive fill:white,color:black",
    "classDef s_parallel color:black,fill:white", "classDef s_active color:red,fill:darksalmon",
    "classDef s_previous color:blue,fill:azure")


def mermaid(m=None) -> str:
    """The step machine `m` (the deciding machine unless told) drawn as a Mermaid stateDiagram-v2: its
    states in order, then its edges from each state, one arrow per destination labelled with its
    triggers and their conditions (`next [owes_nothing & is_idle] | concede`), and the start."""
    m = machine() if m is None else m

    def node(name: str) -> str:  # Mermaid ids may not hold dots: "2.1" is the id s2_1, labelled "2.1"
        return "s" + name.replace(".", "_")

    lines = ["---", "PL 2.5 step order", "---", "stateDiagram-v2", "  direction LR", *("  " + c for c in _STYLES), "  "]
    for name in m.states:
        lines += [f'  state "{name}" as {node(name)}',
                  f"  class {node(name)} s_{'active' if name == START else 'default'}"]
    lines.append("  ")
    arrows: dict[str, dict[str, list[str]]] = {}
    for trigger, event in m.events.items():
        for source, edges in event.transitions.items():
            for t in edges:
                conditions = [c.func if c.target else "!" + c.func for c in t.conditions]
                label = f"{trigger} [{' & '.join(conditions)}]" if conditions else trigger
                arrows.setdefault(source, {}).setdefault(t.dest, []).append(label)
    lines += [f"  {node(src)} --> {node(dst)}: {' | '.join(labels)}"
              for src, dests in arrows.items() for dst, labels in dests.items()]
    lines.append(f"  [*] --> {node(START)}")
    return "\n".join(lines)
