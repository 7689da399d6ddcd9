"""The Refit Phase, 3.1 to 3.52: what each step owes; what leaving it records (3.25 Isolated units, 3.31 fire,
3.33 TVP, 3.42 regrouping, 3.43 heroes, 3.51 SAN) is cg/steps/leaving.py's, named by `on_leave`; and their events' folds (`@on`) and words (`@words`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from cg.items import Kept
from cg.rules import CVP_RULES, Rules, rules_for
from cg.rules import mmc_in_play, nearest_friendly_hex, redeployment_owed, repair_refusal
from cg.sequence import StepId
from cg.specs import Choose
from cg.state import SIDES, CampaignState, Done, active_units, counter_morale, terrain_changed
from cg.steps.changes import AVAILABLE_W, ELIMINATED_W, EVACUATED_W, RECOMBINED_W, SQUAD_K, reph_loss, unit_change
from cg.steps.registry import on, words
from cg.steps.step import Owed, Step, each_side_owes
from cg.steps.wording import option_words, roll_words, side_words
from cg.units import PRESENT, Kind, Status, article

if TYPE_CHECKING:  # its events' classes (built when the first fold or words of the type is made)
    from events.types import (CasualtiesAdded, CasualtyReduced, ClearanceRolled, DiseaseReplaced, DiseaseRolled,
                              ElrRolled, EncircledTested, EvacuationRolled, HalfSquadsRecombined, HeroesRemoved,
                              IsolatedMarked, LeadersRolled, PromotionRolled, RecallRolled, RedeploymentOption,
                              RepairRolled, SanAdjusted, ShockResolved, TvpAwarded, UnitHardened, UnitsStranded)


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


# ---- its events: what each does to the state (`@on`, cg/evolve.py folds with it) ----------------------

@on("redeployment_option")
def _option(st, p: RedeploymentOption):
    st.position = st.position.to(option=p.option)


@on("casualties_added")
def _casualties(st, p: CasualtiesAdded):
    ff = st.ff
    ff.cvp_lost[p.side] += p.cvp
    if ff.winner_rule in CVP_RULES:  # 3.11: RePh losses count for the firefight for all purposes
        ff.winner, ff.winner_rule = rules_for(st).winner_by_cvp(ff)
    for uid in p.units:
        u = st.unit(uid, p.side)
        if u is not None:
            u.status, u.eliminated_in = ELIMINATED_W, st.firefight
        st.ff.lost.append([p.side, uid])


def _eliminate(st, side, uid):
    u = st.unit(uid, side)
    reph_loss(st, u, "eliminated")
    u.status, u.eliminated_in = ELIMINATED_W, st.firefight
    st.ff.lost.append([side, uid])


@on("casualty_reduced")
def _casualty_reduced(st, p: CasualtyReduced):
    c = p.change
    reph_loss(st, st.unit(c.unit, c.side), c.to if c.to == "eliminated" else "reduced")
    unit_change(st, c, True)
    st.reph.done.discard(Done("cr-owed", p.side, p.hex))


@on("half_squads_recombined")
def _recombined(st, p: HalfSquadsRecombined):
    keep, gone = st.unit(p.keep, p.side), st.unit(p.gone, p.side)
    keep.name, keep.kind = p.to, SQUAD_K
    gone.status, gone.hex = RECOMBINED_W, None  # 3.42: off the map with the squad it made


@on("heroes_removed")
def _heroes_removed(st, p: HeroesRemoved):
    for uid in p.units:
        st.unit(uid, p.side).hero = False  # 3.43: removed from play


@on("encircled_tested")
def _encircled(st, p: EncircledTested):
    u = st.unit(p.unit, p.side)
    if p.roll.outcome == "eliminated":
        _eliminate(st, p.side, u.id)
    elif p.roll.outcome == "abandoned":  # 3.17: the Immobile vehicle's crew failed (revision 3)
        u.abandoned = True
        u.encircled = False
        return
    # 3.17: a unit that passes keeps its Encircled marker (revision switch encircled_kept); revision 1
    # removed it, and the logs it wrote fold as they did
    u.encircled = rules_for(st).encircled_after_1tc(p.roll.outcome)
    if u.encircled:
        st.reph.done.add(Done("encircled", u.side, u.id))  # tested this RePh: owes no second 1TC


@on("shock_resolved")
def _shock(st, p: ShockResolved):
    u = st.unit(p.unit, p.side)
    u.shocked = False
    if p.roll.outcome == "eliminated":
        _eliminate(st, p.side, u.id)


@on("isolated_marked")
def _isolated(st, p: IsolatedMarked):
    for su in p.units:
        u = st.unit(su.unit, su.side)
        u.isolated = True
        u.hip = rules_for(st).hip_when_isolated(u.hip)  # 3.212 b / 3.215


@on("units_stranded")
def _stranded(st, p: UnitsStranded):  # ruling R48: eliminated (a vehicle: its wreck leaves the OB and owes no repair)
    for su in p.units:
        u = st.unit(su.unit, su.side)
        if p.counted:  # ruling R95: 3.11, its CVP count for the firefight as R58's losses do
            reph_loss(st, u, "eliminated")
        u.status, u.eliminated_in = ELIMINATED_W, st.firefight
        st.ff.lost.append([su.side, su.unit])
        st.reph.repairs_owed.pop((su.side, su.unit), None)


@on("evacuation_rolled")
def _evac(st, p: EvacuationRolled):
    u = st.unit(p.leader, p.side)
    if p.roll.outcome == "evacuated":
        u.status, u.wounded = EVACUATED_W, False
        rules_for(st).evacuated_leader_lost(st, u)  # 3.45 counts it among the leaders lost
    st.reph.done.add(Done("evacuate", None, u.id))


@on("tvp_awarded")
def _tvp(st, p: TvpAwarded):
    for side in SIDES:
        st.ff.tvp[side] = p.tvp[side]
        st.ff.tvp_total[side] = p.total[side]
        st.sides[side].tvp_total = p.total[side]


@on("disease_rolled")
def _disease(st, p: DiseaseRolled):
    st.reph.done.add(Done("disease", p.side))
    owed = rules_for(st).disease_hs_owed(p.roll.outcome)  # 3.41: the squads struck, in HS equivalents
    if owed is not None:
        st.reph.done.add(Done("disease-owed", p.side, owed))


@on("disease_replaced")
def _disease_replaced(st, p: DiseaseReplaced):
    side, c = p.side, p.change
    u = st.unit(c.unit, side)
    owed = next(k for k in st.reph.done if k.what == "disease-owed" and k.side == side)
    st.reph.done.discard(owed)
    left = owed.of - (2 if u.kind == Kind.SQUAD else 1)
    st.reph.done.add(Done("disease-owed", side, max(0, left)))
    st.reph.done.add(Done("disease-replaced", side, u.id))
    unit_change(st, c, False)


@on("promotion_rolled")
def _promotion(st, p: PromotionRolled):
    st.reph.done.add(Done("promote", p.side))
    st.reph.promotions[p.side] = p.roll.outcome


@on("unit_hardened")
def _hardened(st, p: UnitHardened):
    u = st.unit(p.unit, p.side)
    u.hardened += 1
    st.reph.hardened_now[p.side].append(u.id)
    to, fanatic, hero = rules_for(st).hardening_applied(p)  # the counter changes (ruling R34); 3.43 uses the Hero up
    if to:
        u.name = to
    if fanatic:
        u.fanatic = True
    if hero:
        st.unit(hero, p.side).hero = False


@on("leaders_rolled")
def _leaders(st, p: LeadersRolled):
    st.reph.done.add(Done("leaders", p.side))
    st.reph.may_generate[p.side] = p.may_generate
    st.reph.leader_result[p.side] = p.roll.outcome


@on("repair_rolled")
def _repair(st, p: RepairRolled):
    if p.roll.outcome == "failed" and rules_for(st).failed_repair_kept(p.kind):
        st.reph.done.add(Done("repair", p.side, p.item))  # 3.46: still malfunctioned, tried again next RePh
        return
    st.reph.repairs_owed.pop((p.side, p.item), None)


@on("recall_rolled")
def _recall(st, p: RecallRolled):
    u = st.unit(p.unit, p.side)
    u.recalled = False
    if p.roll.outcome == "returned":
        u.status = AVAILABLE_W
    else:
        u.status, u.eliminated_in = ELIMINATED_W, st.firefight  # no CVP (3.461)


@on("elr_rolled")
def _elr(st, p: ElrRolled):
    side = p.side
    s = st.sides[side]
    if p.before == 5 and p.after < 5:
        s.five_lost = True
    s.elr = p.after
    st.ff.elr[side] = p.after
    st.reph.done.add(Done("elr", side))


@on("san_adjusted")
def _san(st, p: SanAdjusted):
    st.sides[p.side].san = p.after
    st.ff.san[p.side] = p.after


@on("clearance_rolled")
def _clear(st, p: ClearanceRolled):
    hx, item = p.hex, p.item
    st.reph.cleared.add((hx, item))
    terrain_changed(st)
    items = st.ground.terrain.get(hx, [])
    if rules_for(st).casualty_reduction_owed(p.casualty_reduction):
        st.reph.done.add(Done("cr-owed", p.side, hx))  # 3.52 dagger: owed before 3.52 is left (plcg casualties)
    if p.roll.outcome == "eliminated":
        left = rules_for(st).eliminated_clearance_leaves(item)
        if left:
            items.append(Kept(left))
            return
        for it in list(items):
            if it.key == item or (item == "mines" and it.mine):  # 3.52 *: all mines in the Location
                items.remove(it)
        if not items:
            st.ground.terrain.pop(hx, None)
    elif item == "mines" and any(it.key in ("mines", "ap_mine", "known_minefield") for it in items):
        st.reph.ap_failed.add(hx)  # 3.52: a failed A-P mine attempt stops the Location (ruling R23)


# ---- its events in words (`@words`: `plcg log`, the commands' output, the AAR) -----------------------

@words("half_squads_recombined")
def _recombined_words(e) -> str:
    s = side_words(e)
    return f"{s} {e.keep} and {e.gone} recombine into {article(e.to)} (3.42), as {e.keep}"


@words("heroes_removed")
def _heroes_removed_words(e) -> str:
    s = side_words(e)
    return f"{s} Heroes removed from play (3.43: at most one in play): {', '.join(e.units)}"


@words("disease_replaced")
def _disease_replaced_words(e) -> str:
    s = side_words(e)
    c = e.change
    if e.disrupted:
        return (f"{s} {c.unit} Disrupted by Disease & Starvation (3.41), not Replaced: a {c.to} has no "
                "lower-quality counter (A19.12)")
    return f"{s} {c.unit} ELR Replaced by Disease & Starvation (3.41): now a {c.to}"


@words("casualty_reduced")
def _casualty_reduced_words(e) -> str:
    s = side_words(e)
    c = e.change
    what = "eliminated" if c.to == "eliminated" else f"now {article(c.to)}"
    return f"{s} {c.unit} Casualty Reduced for the clearance in {e.hex} (3.52): {what}"


@words("redeployment_option")
def _option_words(e) -> str:
    return option_words(e, None)


@words("casualties_added")
def _casualties_words(e) -> str:
    s = side_words(e)
    return f"{s} RePh losses: {e.cvp} CVP counted for the firefight (3.11)"


@words("encircled_tested")
def _encircled_words(e) -> str:
    s = side_words(e)
    return f"{s} encircled {e.unit} 1TC vs morale {e.morale}: {roll_words(e.roll)}"


@words("shock_resolved")
def _shock_words(e) -> str:
    s = side_words(e)
    return f"{s} {e.unit} Shock/UK: {roll_words(e.roll)}"


@words("isolated_marked")
def _isolated_words(e) -> str:
    return f"Isolated (Ammunition Shortage): {', '.join(u.unit for u in e.units)}"


@words("units_stranded")
def _stranded_words(e) -> str:
    why = "alone and Immobilized after all redeployment" if e.rule == "3.23" else "no redeployment possible"
    counted = "; their CVP count for the firefight (3.11)" if e.counted else ""
    return f"eliminated ({e.rule}: {why}; a vehicle is its wreck, CS NA{counted}): " + \
        ", ".join(f"{u.side} {u.unit}" for u in e.units)


@words("evacuation_rolled")
def _evac_words(e) -> str:
    s = side_words(e)
    return f"{s} wounded {e.leader} evacuation: {roll_words(e.roll)}"


@words("tvp_awarded")
def _tvp_words(e) -> str:
    return f"TVP: Axis {e.tvp['axis']} (CG total {e.total['axis']}), Allied {e.tvp['allied']} " \
           f"(CG total {e.total['allied']})"


@words("disease_rolled")
def _disease_words(e) -> str:
    s = side_words(e)
    return f"{s} Disease & Starvation: {roll_words(e.roll)} squad(s) replaced"


@words("promotion_rolled")
def _promotion_words(e) -> str:
    s = side_words(e)
    return f"{s} Battlefield Promotion: {roll_words(e.roll)} MMC"


@words("leaders_rolled")
def _leaders_words(e) -> str:
    s = side_words(e)
    return f"{s} Leader Generation: {roll_words(e.roll)}; may generate {e.may_generate}"


@words("unit_hardened")
def _hardened_words(e) -> str:
    s = side_words(e)
    return f"{s} {e.unit} Battle Hardened ({e.by})" + (f" to {e.to}" if e.to else "") + \
        (" (Elite: Fanatic, the counter stays)" if e.fanatic else "") + \
        (f" with the Hero of {e.hero}" if e.hero and e.hero != e.unit else "")


@words("repair_rolled")
def _repair_words(e) -> str:
    s = side_words(e)
    return f"{s} repair of {e.item} ({e.kind}): {roll_words(e.roll)}"


@words("recall_rolled")
def _recall_words(e) -> str:
    s = side_words(e)
    return f"{s} recalled {e.unit}: {roll_words(e.roll)}"


@words("elr_rolled")
def _elr_words(e) -> str:
    s = side_words(e)
    return f"{s} ELR Loss/Gain: {roll_words(e.roll)}; ELR {e.before} -> {e.after}"


@words("san_adjusted")
def _san_words(e) -> str:
    s = side_words(e)
    return f"{s} SAN {e.before} -> {e.after} (3.51)"


@words("clearance_rolled")
def _clearance_words(e) -> str:
    s = side_words(e)
    cr = "; Casualty Reduction of one MMC (original 6)" if e.casualty_reduction else ""
    return f"{s} clearance of {e.item} in {e.hex}: {roll_words(e.roll)}{cr}"
