"""The Refit Phase, 3.1 to 3.52: what each step owes; what leaving it records (3.25 Isolated units, 3.31 fire,
3.33 TVP, 3.42 regrouping, 3.43 heroes, 3.51 SAN) is cg/steps/leaving.py's, named by `on_leave`."""
from __future__ import annotations

from cg.rules import Rules
from cg.rules import mmc_in_play, nearest_friendly_hex, redeployment_owed, repair_refusal
from cg.sequence import StepId
from cg.state import SIDES, CampaignState, Done, active_units, counter_morale
from cg.specs import Choose
from cg.steps.step import Owed, Step, each_side_owes
from cg.units import PRESENT, Kind, Status


def _battle_end_owes(state: CampaignState, rules: Rules) -> Owed:
    owed = Owed()
    for u in active_units(state)[0]:  # a settled unit is not PRESENT: the units not settled, in order
        if u.encircled and u.status in PRESENT and Done("encircled", u.side, u.id) not in state.reph.done:
            if counter_morale(u.name) is None:
                owed.add("encircled", "3.17", f"1TC for encircled {u.id}", False, side=u.side, unit=u.id,
                          morale=Choose("M"))
            else:  # the counter shows the morale: runnable as written
                owed.add("encircled", "3.17", f"1TC for encircled {u.id}", side=u.side, unit=u.id)
        if u.shocked and u.status in PRESENT:
            owed.add("shock", "3.19", f"Shock/UK dr for {u.id}", side=u.side, unit=u.id)
    return owed


def _redeployment_owes(state: CampaignState, rules: Rules) -> Owed:
    owed = Owed()
    if state.option is None:
        owed.add("option", "3.2", "Redeployment Option A or B (kept for the CG)", False, option=Choose("A|B"))

    for side, unit, rule in redeployment_owed(state):
        if not rules.owes_redeployment(rule):
            continue  # an Isolated unit may, not must, redeploy
        near = nearest_friendly_hex(state, state.unit(unit, side))
        owed.add("redeploy", rule,
                 f"{side} {unit} must redeploy ({rule})" + (f"; nearest friendly CTHC hex: {near}" if near else ""),
                 False, side=side, unit=unit, to=Choose.HEX)
    return owed


def _consequences_owes(state: CampaignState, rules: Rules) -> Owed:
    owed = Owed()
    card = state.card
    for u in active_units(state)[0]:  # as at 3.1: every unit PRESENT is among them
        if u.wounded and u.kind == Kind.LEADER and u.status in PRESENT \
                and Done("evacuate", None, u.id) not in state.reph.done \
                and card.sides[u.side].nationality.lower() != "japanese":
            owed.add("evacuate", "3.32", f"evacuation dr for wounded {u.id}", side=u.side, leader=u.id)
    return owed


def _disease_owes(state: CampaignState, rules: Rules) -> Owed:
    owed = Owed()
    if state.card.campaign.disease:
        for side in SIDES:
            if Done("disease", side) not in state.reph.done:
                owed.add("disease", "3.41", f"{side} Disease & Starvation dr", side=side)
            left = disease_owed(state, side)
            if left > 0 and any(u.kind in (Kind.SQUAD, Kind.HALF_SQUAD) and u.status in PRESENT
                                and Done("disease-replaced", side, u.id) not in state.reph.done
                                for u in state.side_units(side)):
                owed.add("disease", "3.41",
                         f"{side}: ELR Replacement of {left} more HS equivalent(s), Isolated units first", False,
                         side=side, replaced=Choose.UNIT)
    return owed


def disease_owed(state: CampaignState, side: str) -> int:
    """3.41 (revision switch disease_replacements): the HS equivalents the side's dr still owes."""
    key = next((k for k in state.reph.done if k.what == "disease-owed" and k.side == side), None)
    return key.of if key else 0


def _repair_owes(state: CampaignState, rules: Rules) -> Owed:
    owed = Owed()
    for (side, item), kind in sorted(state.reph.repairs_owed.items()):
        if Done("repair", side, item) in state.reph.done:  # failed this RePh: owed again next RePh (3.46)
            continue
        if repair_refusal(state, side, item, state.unit(item, side), kind):
            continue  # ruling R48, every revision: `repair` refuses it where it stands; owed next RePh
        owed.add("repair", "3.46", f"{side} repair dr for {item} ({kind})", side=side, item=item, kind=kind)
    return owed


def _recall_owes(state: CampaignState, rules: Rules) -> Owed:
    owed = Owed()
    for u in active_units(state)[0]:  # a recalled vehicle is not settled: among them, in order
        if u.recalled and u.status == Status.RECALLED:
            owed.add("recall", "3.461", f"recalled vehicle {u.id}", side=u.side, vehicle=u.id)
    return owed


def _clearance_owes(state: CampaignState, rules: Rules) -> Owed:
    owed = Owed()
    for key in sorted(k for k in state.reph.done if k.what == "cr-owed"):  # 3.52 dagger (revision 3)
        side, hx = key.side, key.of
        if not mmc_in_play(state, side):
            continue  # ruling R100: no MMC in play, none to reduce: `casualties --reduced` refuses every unit
        owed.add("casualties", "3.52", f"{side}: the Casualty Reduction of one MMC the clearance in {hx} owes (3.52)",
                 False, side=side, reduced=(Choose.UNIT,))
    return owed


STEPS = (
    Step(StepId.BATTLE_END, "End of the Battle Phase", "3.1", owes=_battle_end_owes,
         accepts=("casualties", "encircled", "shock")),
    Step(StepId.REDEPLOYMENT, "Redeployment Phase", "3.2", owes=_redeployment_owes,
         accepts=("option", "redeploy", "casualties"), on_leave="redeployment"),
    Step(StepId.CONSEQUENCES, "Consequences Phase", "3.3", owes=_consequences_owes,
         accepts=("casualties", "rubble", "flame", "evacuate"), on_leave="consequences"),
    Step(StepId.DISEASE, "Disease & Starvation", "3.41", owes=_disease_owes, accepts=("disease",),
         # 2.41 Idle
         leads_to=((StepId.REPAIR, "is_idle"),)),
    Step(StepId.REGROUPING, "Regrouping", "3.42", on_leave="regrouping"),
    Step(StepId.HEROES, "Heroes and Heroic Leaders", "3.43", accepts=("harden",), on_leave="heroes"),
    Step(StepId.PROMOTIONS, "Bravery and Battlefield Promotions", "3.44",
         owes=each_side_owes("promote", "3.44", "Battlefield Promotion dr"), accepts=("promote", "harden")),
    Step(StepId.LEADERS, "Leader Generation/Improvement", "3.45",
         owes=each_side_owes("leaders", "3.45", "Leader Generation dr"), accepts=("leader", "leaders", "harden")),
    Step(StepId.REPAIR, "Unjamming Guns, Replenishing Ammo, Mobilizing Vehicles", "3.46", owes=_repair_owes,
         accepts=("repair",)),
    Step(StepId.RECALL, "Removing Stun, Reclaiming Recalled Vehicles", "3.461", owes=_recall_owes,
         accepts=("recall",),
         # 2.41 Idle
         leads_to=((StepId.CLEARANCE, "is_idle"),)),
    Step(StepId.ELR, "ELR Loss/Gain", "3.47", owes=each_side_owes("elr", "3.47", "ELR Loss/Gain DR"),
         accepts=("elr",)),
    Step(StepId.SAN, "SAN Adjustment", "3.51", on_leave="san"),
    Step(StepId.CLEARANCE, "Fortification Clearance", "3.52", owes=_clearance_owes, accepts=("clear", "casualties"),
         # ruling R16, R74
         leads_to=((StepId.END, "is_last"), (StepId.CP,))),
)
