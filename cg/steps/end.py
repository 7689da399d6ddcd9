"""The ends: 2.9 CG Firefight End, and the CG's end (1.3), which any step may lead to."""
from __future__ import annotations

from cg.rules import Rules
from cg.sequence import StepId
from cg.state import CampaignState, Done
from cg.specs import Choose
from cg.steps.step import Owed, Step


def _firefight_end_owes(state: CampaignState, rules: Rules) -> Owed:
    owed = Owed()
    if Done("end") not in state.reph.done:
        owed.add("end", "2.9", "firefight result", False, turn=Choose.N, cvp_lost=Choose.CVP_LOST)
    return owed


FIREFIGHT_END = Step(StepId.FIREFIGHT_END, "CG Firefight End", "2.9", owes=_firefight_end_owes,
                     accepts=("end", "position", "rubble", "flame"))
CG_END = Step(StepId.END, "CG End", "1.3")  # ruling R16, R74: after the last firefight's RePh, or conceded
