"""The Refit Phase, 3.1 to 3.52: what each step owes, and what leaving it records (3.25 Isolated units,
3.31 fire, 3.33 TVP, 3.42 regrouping, 3.43 heroes, 3.51 SAN)."""
from __future__ import annotations

from cg import counters, tables, terrain
from cg.card import BURNABLE
from cg.items import Kept
from cg.rules import Rules
from cg.rules import counter_table, mlr_of, mmc_in_play, nearest_friendly_hex, redeployment_owed, repair_refusal, \
    stranded_fate
from cg.sequence import StepId
from cg.state import SIDES, CampaignState, Done, active_units, counter_morale, expand_units
from cg.steps.step import Owed, Step, each_side_owes
from cg.units import PRESENT, Kind, Status
from events import types as ev


def _battle_end_owes(state: CampaignState, rules: Rules) -> Owed:
    owed = Owed()
    for u in active_units(state)[0]:  # a settled unit is not PRESENT: the units not settled, in order
        if u.encircled and u.status in PRESENT and Done("encircled", u.side, u.id) not in state.reph.done:
            if counter_morale(u.name) is None:
                owed.add(f"plcg encircled {u.side} {u.id} --morale M", "3.17", f"1TC for encircled {u.id}", False)
            else:  # the counter shows the morale: runnable as written
                owed.add(f"plcg encircled {u.side} {u.id}", "3.17", f"1TC for encircled {u.id}")
        if u.shocked and u.status in PRESENT:
            owed.add(f"plcg shock {u.side} {u.id}", "3.19", f"Shock/UK dr for {u.id}")
    return owed


def _redeployment_owes(state: CampaignState, rules: Rules) -> Owed:
    owed = Owed()
    if state.option is None:
        owed.add("plcg option A|B", "3.2", "Redeployment Option A or B (kept for the CG)", False)

    for side, unit, rule in redeployment_owed(state):
        if not rules.owes_redeployment(rule):
            continue  # an Isolated unit may, not must, redeploy
        near = nearest_friendly_hex(state, state.unit(unit, side))
        owed.add(f"plcg redeploy {side} {unit} --to HEX", rule,
                 f"{side} {unit} must redeploy ({rule})" + (f"; nearest friendly CTHC hex: {near}" if near else ""),
                 False)
    return owed


def _redeployment_leave(st: CampaignState, rules: Rules) -> list:
    """3.25: the units Isolated at the end of redeployment; ruling R48: those that could not redeploy."""
    out: list = []
    mc = st.map_control()
    iso = [ev.SideUnit(u.side, u.id) for u in active_units(st)[0]  # the units not settled, in order
           if u.status in PRESENT and u.hex and mc.hexes[u.hex].isolated == u.side]
    wrecked, stay = stranded_fate(st)  # ruling R48, every revision: the units that could not redeploy
    for rule in ("3.214", "3.23"):
        units = tuple(ev.SideUnit(s, u) for s, u, r in wrecked if r == rule)
        if units:
            # ruling R95: 3.11 "All RePh losses count", these as the ledger's other RePh losses (R58)
            out.append(ev.UnitsStranded(units=units, rule=rule, counted=rules.reph_loss_counts(st.step)))
    gone = {(s, u) for s, u, _ in wrecked}
    iso = [x for x in iso if (x.side, x.unit) not in gone] + \
        [ev.SideUnit(s, u) for s, u, _ in stay if ev.SideUnit(s, u) not in iso]
    if iso:
        out.append(ev.IsolatedMarked(units=tuple(iso)))
    return out


def _consequences_owes(state: CampaignState, rules: Rules) -> Owed:
    owed = Owed()
    card = state.card
    for u in active_units(state)[0]:  # as at 3.1: every unit PRESENT is among them
        if u.wounded and u.kind == Kind.LEADER and u.status in PRESENT \
                and Done("evacuate", None, u.id) not in state.reph.done \
                and card.sides[u.side].nationality.lower() != "japanese":
            owed.add(f"plcg evacuate {u.side} {u.id}", "3.32", f"evacuation dr for wounded {u.id}")
    return owed


def _consequences_leave(st: CampaignState, rules: Rules) -> list:
    """3.31 fire between firefights, 3.33 TVP."""
    out: list = []
    changes = _fire_3_31(st)
    if changes:
        out.append(ev.TerrainChanged(rule="3.31", changes=tuple(changes),
                                     note="Flames/Blazes/Burning Wrecks between firefights"))
    out.append(_tvp(st))
    return out


_BURNING = frozenset(map(Kept, ("flame", "blaze", "burning_wreck")))  # 3.31, 3.311: each as kept, no side


def _fire_3_31(st: CampaignState) -> list:
    if not any(i in _BURNING for items in st.ground.terrain.values() for i in items):
        return []
    nxt = st.card.firefights[st.firefight] if st.firefight < len(st.card.firefights) else None
    same_date = nxt is not None and nxt.date == st.ff.date
    grid = st.grid()
    buildings = set(st.card.map.buildings)
    # ruling R20: a Flame spreads into building hexes; ruling R35: and into the burnable terrain a card
    # of the second round maps (woods, orchard, brush, grain: 3.31); a first-format card maps none
    m = st.card.map
    burnable = buildings | {h for key in BURNABLE for h in getattr(m, key)}
    raw = terrain.resolve_3_31({h: list(map(str, v)) for h, v in st.ground.terrain.items()}, buildings, same_date,
                               grid.neighbours, burnable=burnable.__contains__)
    return [ev.TerrainChange(h, c, i) for h, c, i in raw]


def _tvp(st: CampaignState):
    """3.33: TVP of each card TVP hex to the side that controls it now. # ruling R46: Strategic Terrain the
    campaign grows (1.4, switch strategic_grows) is controlled and counts for CTHC and MLR, but only the
    CG Card gives a Location a TVP value (1.4 TVP), so it adds none; a card TVP hex keeps its value."""
    tvp = {"axis": 0, "allied": 0}
    for hx, value in st.card.map.tvp.items():
        side = st.ground.control.get(hx)
        if side:
            tvp[side] += value
    total = {s: st.sides[s].tvp_total + tvp[s] for s in SIDES}
    return ev.TvpAwarded(tvp=tvp, total=total)


def _disease_owes(state: CampaignState, rules: Rules) -> Owed:
    owed = Owed()
    if state.card.campaign.disease:
        for side in SIDES:
            if Done("disease", side) not in state.reph.done:
                owed.add(f"plcg disease {side}", "3.41", f"{side} Disease & Starvation dr")
            left = disease_owed(state, side)
            if left > 0 and any(u.kind in (Kind.SQUAD, Kind.HALF_SQUAD) and u.status in PRESENT
                                and Done("disease-replaced", side, u.id) not in state.reph.done
                                for u in state.side_units(side)):
                owed.add(f"plcg disease {side} --replaced UNIT", "3.41",
                         f"{side}: ELR Replacement of {left} more HS equivalent(s), Isolated units first", False)
    return owed


def disease_owed(state: CampaignState, side: str) -> int:
    """3.41 (revision switch disease_replacements): the HS equivalents the side's dr still owes."""
    key = next((k for k in state.reph.done if k.what == "disease-owed" and k.side == side), None)
    return key.of if key else 0


def _regrouping_leave(st: CampaignState, rules: Rules) -> list:
    """3.42 (ruling R62): "All same-type half-squads in the same Friendly MLR must Recombine ..., leaving <= 1 of each
    type": pairs of one counter in one MLR (a unit with no recorded hex is in its friendly MLR), into the
    squad of the RG's card whose HS it is, else the one squad of the counter table (where two share the HS,
    the pair is left as it is: the table cannot tell which)."""
    if not rules.half_squads_regroup():
        return []

    out = []
    for side in SIDES:
        nat, over = counter_table(st, side)
        groups: dict = {}
        for u in st.side_units(side):
            if u.kind != Kind.HALF_SQUAD or u.status not in PRESENT:
                continue
            part = mlr_of(st, side, u.hex) if u.hex else "its MLR"
            if part is not None:
                groups.setdefault((part, u.name), []).append(u)
        for (_part, name), hs in groups.items():
            pur = st.purchase(hs[0].purchase, side) if hs[0].purchase else None
            rg = st.card.sides[side].group_by_id(pur.rg) if pur is not None else None
            listed = [n for n in expand_units(rg.units) if counters.half_squad(nat, n, over) == name] if rg else []
            to = listed[0] if listed else counters.squad_of(nat, name, over)
            if to is None:
                continue
            out += [ev.HalfSquadsRecombined(side=side, keep=a.id, gone=b.id, to=to) for a, b in zip(hs[0::2], hs[1::2])]
    return out


def _heroes_leave(st: CampaignState, rules: Rules) -> list:
    if not rules.half_squads_regroup():
        return []
    out: list = []
    for side in SIDES:  # 3.43, ruling R62: "Remove any Heroes that cannot combine until each side has <1 (at most one)"
        heroes = [u.id for u in st.side_units(side) if u.hero and u.kind != Kind.LEADER
                  and u.status in PRESENT]
        if len(heroes) > 1:
            out.append(ev.HeroesRemoved(side=side, units=tuple(heroes[1:])))
    return out


def _repair_owes(state: CampaignState, rules: Rules) -> Owed:
    owed = Owed()
    for (side, item), kind in sorted(state.reph.repairs_owed.items()):
        if Done("repair", side, item) in state.reph.done:  # failed this RePh: owed again next RePh (3.46)
            continue
        if repair_refusal(state, side, item, state.unit(item, side), kind):
            continue  # ruling R48, every revision: `repair` refuses it where it stands; owed next RePh
        owed.add(f"plcg repair {side} {item} --kind {kind}", "3.46", f"{side} repair dr for {item} ({kind})")
    return owed


def _recall_owes(state: CampaignState, rules: Rules) -> Owed:
    owed = Owed()
    for u in active_units(state)[0]:  # a recalled vehicle is not settled: among them, in order
        if u.recalled and u.status == Status.RECALLED:
            owed.add(f"plcg recall {u.side} {u.id}", "3.461", f"recalled vehicle {u.id}")
    return owed


def _san_leave(st: CampaignState, rules: Rules) -> list:
    """3.51: each side's SAN adjusted by the table."""
    out: list = []
    for side in SIDES:
        before = st.sides[side].san
        out.append(ev.SanAdjusted(side=side, before=before, after=tables.san_adjust(before)))
    return out


def _clearance_owes(state: CampaignState, rules: Rules) -> Owed:
    owed = Owed()
    for key in sorted(k for k in state.reph.done if k.what == "cr-owed"):  # 3.52 dagger (revision 3)
        side, hx = key.side, key.of
        if not mmc_in_play(state, side):
            continue  # ruling R100: no MMC in play, none to reduce: `casualties --reduced` refuses every unit
        owed.add(f"plcg casualties {side} --reduced UNIT", "3.52",
                 f"{side}: the Casualty Reduction of one MMC the clearance in {hx} owes (3.52)", False)
    return owed


STEPS = (
    Step(StepId.BATTLE_END, "End of the Battle Phase", "3.1", owes=_battle_end_owes,
         accepts=("casualties", "encircled", "shock")),
    Step(StepId.REDEPLOYMENT, "Redeployment Phase", "3.2", owes=_redeployment_owes,
         accepts=("option", "redeploy", "casualties"), on_leave=_redeployment_leave),
    Step(StepId.CONSEQUENCES, "Consequences Phase", "3.3", owes=_consequences_owes,
         accepts=("casualties", "rubble", "flame", "evacuate"), on_leave=_consequences_leave),
    Step(StepId.DISEASE, "Disease & Starvation", "3.41", owes=_disease_owes, accepts=("disease",),
         # 2.41 Idle
         leads_to=((StepId.REPAIR, "is_idle"),)),
    Step(StepId.REGROUPING, "Regrouping", "3.42", on_leave=_regrouping_leave),
    Step(StepId.HEROES, "Heroes and Heroic Leaders", "3.43", accepts=("harden",), on_leave=_heroes_leave),
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
    Step(StepId.SAN, "SAN Adjustment", "3.51", on_leave=_san_leave),
    Step(StepId.CLEARANCE, "Fortification Clearance", "3.52", owes=_clearance_owes, accepts=("clear", "casualties"),
         # ruling R16, R74
         leads_to=((StepId.END, "is_last"), (StepId.CP,))),
)
