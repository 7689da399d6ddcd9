"""One PL step as one object (`Step`), and the list a step's `owes` fills (`Owed`).

A step holds its id (`StepId`) and rule, what it owes given the state and the rules revision in force
(`owes`: only what the rules make compulsory before `plcg next`), the commands it accepts (`accepts`),
what leaving it records (`on_leave`: the events `next` writes by itself, before its `step_left`), what
leaving it does to the state (`on_left`, folded with that `step_left`), and what entering it does to the
state (`on_enter`). The steps are in the module of their phase (purchase.py, before.py, end.py,
reph.py); `cg/machine.py` builds the `transitions` machine from them.
"""
from __future__ import annotations

from typing import Callable

import attrs

from cg.rules import Rules
from cg.sequence import StepId
from cg.specs import Item
from cg.state import SIDES, CampaignState, Done
from events import records


class Owed(list):
    """What a step owes, in order: each an `Item` (cg/specs.py: the command's spec and typed arguments, read
    as cli-contract.md's status `pending` item), `runnable` where it runs as written."""

    def add(self, name: str, rule: str, what: str, runnable: bool = True, **values) -> None:
        """Owe command `name` with the arguments `values` (`Choose` where the player chooses one)."""
        self.append(Item.of(name, rule, what, runnable, **values))


def each_side_owes(command: str, rule: str, words: str) -> Callable[[CampaignState, Rules], Owed]:
    """The `owes` of a step where each side owes one roll, `plcg COMMAND SIDE`, done once the side's
    Done(COMMAND, side) is recorded (2.1 CP, 3.44 promotion, 3.45 leaders, 3.47 ELR)."""

    def owes(state: CampaignState, rules: Rules) -> Owed:
        owed = Owed()
        for side in SIDES:
            if Done(command, side) not in state.reph.done:
                owed.add(command, rule, f"{side} {words}", side=side)
        return owed

    return owes


def owes_nothing(state: CampaignState, rules: Rules) -> Owed:
    return Owed()


@records.frozen
class Step:
    id: StepId
    name: str
    rule: str
    # what the step owes before `next`, given the state and the revision in force (Owed, in order)
    owes: Callable[[CampaignState, Rules], Owed] = owes_nothing
    # the commands given at this step (cg/commands: `@command(name)` takes its steps from here)
    accepts: tuple[str, ...] = ()
    # the events leaving it records by itself (decided by `next`, before its step_left): the name of its
    # function in cg/steps/leaving.py, fn(state, rules) -> events ("": none). By name, so that reading
    # the steps (`status`) never imports the event classes that function builds
    on_leave: str = ""
    # what leaving it does to the state, folded with the step_left (to: the step entered, or END)
    on_left: Callable[[CampaignState, StepId], None] | None = None
    # what entering it does to the state, folded with the step_left that enters it (p: that event)
    on_enter: Callable[[CampaignState, object], None] | None = None
    # where `next` leads besides the step declared after it, in order: (step, the conditions that must
    # hold, by name: cg/machine.Walk's methods); the first edge whose conditions hold is taken, and when
    # none does, `next` goes to the step declared next (cg/steps.leads). An edge without conditions
    # ends the list: that step is never followed by the next one declared (3.52 returns to 2.1).
    leads_to: tuple[tuple, ...] = ()

