"""The steps before the firefight, 2.4 to 2.8: Determination, Redeployment in the Friendly MLR, Setup,
Patrols, Commencement."""
from __future__ import annotations

from cg.rules import Rules, rules_for
from cg.sequence import StepId
from cg.state import SIDES, CampaignState, Done
from cg.specs import Choose
from cg.steps.step import Owed, Step


def _determination_owes(state: CampaignState, rules: Rules) -> Owed:
    owed = Owed()
    if Done("determine") not in state.reph.done:
        owed.add("determine", "2.41", "firefight type")
    elif state.ff.time == "night" and Done("night") not in state.reph.done and not state.idle:
        owed.add("night", "2.42", "night conditions from the CG Card's night rules", False, text=Choose("TEXT"))
    return owed


def _mlr_redeployment_left(st: CampaignState, to: StepId) -> None:
    if rules_for(st).redeployed_marks_cleared_leaving_2_5(to):
        for u in st.units.values():  # ruling R28: the 3.2 redeployment mark lasts through 2.5
            u.redeployed = False


def _setup_owes(state: CampaignState, rules: Rules) -> Owed:
    owed = Owed()
    if state.ff.type == "dual" and state.ff.move_first is None:  # revision 2: after all setup (2.41)
        owed.add("moves-first", "2.41", "Dual Attack: the dr for who moves first, after all setup")
    return owed


def _patrols_owes(state: CampaignState, rules: Rules) -> Owed:
    owed = Owed()
    for side in SIDES:
        done = state.reph.patrols_done[side]
        for n in range(1, state.sides[side].patrols + 1):
            if n not in done:
                owed.add("patrol", "2.7", f"{side} patrol {n} (or give it up: plcg patrol {side} --give-up REASON)",
                         False, side=side, kind=Choose("TYPE"), units=Choose("..."), leader=Choose("L"),
                         hex_=Choose.HEX)
        for n in sorted(state.reph.patrols_to_return[side]):
            owed.add("patrol-return", "2.74", f"{side} patrol {n} Return DR", side=side, patrol_n=n)
    return owed


def _commencement_left(st: CampaignState, to: StepId) -> None:
    st.ff.commenced = True  # 2.8 Firefight Commencement (conceded here too)


STEPS = (
    Step(StepId.DETERMINATION, "Firefight Determination", "2.4", owes=_determination_owes,
         accepts=("determine", "night"),
         # 2.41 Idle; 2.5 not in the Initial Firefight
         leads_to=((StepId.DISEASE, "is_idle"), (StepId.SETUP, "is_initial"))),
    Step(StepId.MLR_REDEPLOYMENT, "Redeployment of Units in Friendly MLR", "2.5", accepts=("redeploy",),
         on_left=_mlr_redeployment_left),
    Step(StepId.SETUP, "Firefight Setup", "2.6", owes=_setup_owes, accepts=("fortify", "setup", "moves-first")),
    Step(StepId.PATROLS, "Patrols", "2.7", owes=_patrols_owes, accepts=("patrol", "patrol-return")),
    Step(StepId.COMMENCEMENT, "Firefight Commencement", "2.8", on_left=_commencement_left),
)
