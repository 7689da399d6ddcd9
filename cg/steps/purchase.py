"""The purchase steps, 2.1 to 2.3: CP Replenishment, At Start Weather, Purchasing Reinforcements."""
from __future__ import annotations

from cg import seal
from cg.rules import Rules, rules_for
from cg.sequence import StepId
from cg.state import SIDES, BySide, CampaignState, Done, new_firefight
from cg.steps.step import Owed, Step, each_side_owes


def _new_firefight_entered(st: CampaignState, p) -> None:
    """2.1 entered (from 3.52): the next CG Firefight, and the RePh's records of the one before dropped."""
    played = not st.idle
    new_firefight(st, p.firefight)
    for side in SIDES:
        s = st.sides[side]
        s.attack, s.patrols, s.platoons = False, 0, 0
    st.reph.cleared.clear()
    st.reph.ap_failed.clear()
    st.reph.patrols_done = BySide(set(), set())
    st.reph.patrols_to_return = BySide(set(), set())
    st.reph.patrol_units = {}
    if rules_for(st).redeployed_marks_cleared_at_2_1(played):
        for u in st.units.values():
            u.redeployed = False
    st.reph.hardened_now = BySide([], [])
    st.reph.promotions = BySide(0, 0)
    st.reph.leader_result = BySide(0, 0)
    st.reph.generated = BySide(0, 0)
    st.reph.may_generate = BySide(0, 0)


def _weather_owes(state: CampaignState, rules: Rules) -> Owed:
    owed = Owed()
    if Done("weather") not in state.reph.done:
        owed.add("weather", "2.2", "at-start weather")
    return owed


def _purchase_owes(state: CampaignState, rules: Rules) -> Owed:
    owed = Owed()
    hidden = _sealed_2_3(state)  # rulings R72 and R47: the other side's secret, this view cannot open
    hidden |= {side for side in SIDES if seal.unseen_purchases(state, side)}
    for p in _this_firefights(state):
        if p.side in hidden:
            continue
        for _ in range(p.leader_owed):
            owed.add("leader", "2.36", f"{p.side} leader DR for {p.id}", side=p.side, rg=p.id)
        if p.oba_owed:
            owed.add("oba", "2.35", f"{p.side} OBA ammunition DR for {p.id}", side=p.side, rg=p.id)
    return owed


def _purchase_entered(st: CampaignState, p) -> None:
    for side in SIDES:
        st.sides[side].platoons = 0


def _this_firefights(state: CampaignState) -> list:
    """The purchases of the current firefight, in their order: they come last in `purchases`, which are
    made in firefight order (cg/evolve.py), so the walk stops at the first earlier one."""
    out = []
    for p in reversed(state.purchases.values()):
        if p.firefight < state.firefight:
            break
        if p.firefight == state.firefight:
            out.append(p)
    out.reverse()
    return out


def _sealed_2_3(state: CampaignState) -> set[str]:
    """Ruling R72: the sides whose 2.3 secrets this view cannot open (play by email, ruling R47): a
    leader or OBA DR it owes may be in one of them, so this view owes none of its DRs; its own copy
    does, and the audit of the CG's end, with every seal open, checks them."""
    pb = state.pbem
    if pb is None or not pb.seals:
        return set()
    return {r.side for r in pb.seals.values()
            if not r.opened and r.ff == state.firefight and r.step == StepId.PURCHASE}


STEPS = (
    Step(StepId.CP, "CP Replenishment", "2.1", owes=each_side_owes("cp", "2.1", "CP replenishment"),
         accepts=("cp",), on_enter=_new_firefight_entered,
         # ruling R27; rules revision 1: 2.2 in the Initial Firefight only, else on to 2.3
         leads_to=((StepId.WEATHER, "weather_every"), (StepId.PURCHASE,))),
    Step(StepId.WEATHER, "At Start Weather", "2.2", owes=_weather_owes, accepts=("weather",)),
    Step(StepId.PURCHASE, "Purchasing Reinforcements", "2.3", owes=_purchase_owes,
         accepts=("buy", "patrols", "attack", "oba", "leader", "fortify"), on_enter=_purchase_entered),
)
