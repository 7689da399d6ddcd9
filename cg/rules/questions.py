"""Where units stand after a firefight (3.212) and who owes a 3.2 redeployment, in rule order; what
3.52 clearance may still attempt; which units a 3.46 repair dr can be for."""
from __future__ import annotations

from typing import TYPE_CHECKING

from cg import caches, counters
from cg import state as _state  # the module: cg.state asks cg.rules.revisions while it loads (strategic terrain)
from cg.rules.revisions import rules_for
from cg.units import MMC, PERSONNEL, Kind, PRESENT, is_mmc

if TYPE_CHECKING:
    from cg.state import CampaignState


def counter_table(st: CampaignState, side: str) -> tuple[str, dict]:
    """(nationality, the card's counter overrides for it): what cg/counters.py reads (ruling R34)."""
    return st.card.sides[side].nationality, st.card.counter_overrides(side)


# 3.21: the order of the redeployment situations, each attacker before defender
ORDER = (("enemy_mlr", "3.214"), ("isolated", "3.215"), ("uncontrolled", "3.216"), ("nml", "3.217"))


def situation_of(state: CampaignState, unit, mc=None) -> str:
    """3.212 situation; a unit with no recorded hex is taken to be in its friendly MLR (contract).
    `mc`: the state's map control when the caller holds it already."""
    if not unit.hex:
        return "friendly_mlr"
    return (mc or state.map_control()).situation(unit.hex, unit.side)


def attacker_for_redeployment(state: CampaignState) -> str:
    """2.5: in a Dual Attack, the side that moved first in the most recent non-idle firefight."""
    for ff in reversed(state.firefights[: state.firefight]):
        if ff.type and ff.type != "idle":
            return ff.attacker or ff.move_first
    return state.card.campaign.initial_attacker




def redeployment_owed(state: CampaignState) -> list[tuple[str, str, str]]:
    """(side, unit, rule) for every unit that must redeploy at 3.2, in the order 3.214-3.217."""
    att = attacker_for_redeployment(state)
    mc = state.map_control()
    where: dict[str, list] = {}
    # (hex, side) -> situation: a stack asks once, and a run of 3.2 redeployments on one picture (held, so
    # never a freed one's) asks each place once; situation() is a pure function of the picture
    last = caches.current().known  # the last picture and the 3.212 situations asked of it
    if last[0] is not mc:
        last[:] = (mc, {})
    known: dict[tuple, str] = last[1]
    held: dict[str, bool] = {}  # side -> it holds a friendly-controlled hex: asked once a side, not once a unit
    sw = rules_for(state).sw_moves_with_possessor()
    vehicle, support = Kind.VEHICLE, Kind.SW  # (asked of every unit of every `redeploy` at 3.2: looked up once)
    for u in _state.active_units(state)[0]:  # the units not settled: every one on the map among them
        if u.status not in PRESENT or u.redeployed or not u.hex or (sw and u.kind == support):
            continue  # ruling R86: a SW goes with its possessor, never on a roll of its own
        if u.side not in held:
            held[u.side] = bool(mc.cthc_hexes(u.side))
        if not held[u.side] or (u.kind == vehicle and immobilized(state, u)):  # cannot_redeploy (ruling R48, every
            continue  # revision): it owes none; leaving 3.2 decides its fate
        at = (u.hex, u.side)
        situation = known.get(at)
        if situation is None:
            situation = known[at] = mc.situation(u.hex, u.side)
        where.setdefault(situation, []).append(u)
    out = []
    for situation, rule in ORDER:
        for side in (att, _state.other(att)):
            out += [(side, u.id, rule) for u in where.get(situation, ()) if u.side == side]
    return out


def carried_by(state: CampaignState, unit) -> list:
    """Ruling R86 (revision switch sw_with_possessor): the SWs `unit` possesses where it stands, which move
    with it. A SW in play in a hex is possessed by one of its side's personnel there: a MMC of its own RG
    first, then a leader of its RG, then any other MMC, then any other SMC, each in the order of the OB."""
    if not unit.hex or unit.kind not in PERSONNEL or not rules_for(state).sw_moves_with_possessor():
        return []
    here = [u for u in _state.active_units(state)[0] if u.side == unit.side and u.hex == unit.hex and u.status in PRESENT]
    weapons = [w for w in here if w.kind == Kind.SW]
    if not weapons:
        return []
    holders = [(i, u) for i, u in enumerate(here) if u.kind in PERSONNEL]
    return [w for w in weapons
            if min(holders, key=lambda h: (h[1].purchase != w.purchase, h[1].kind not in MMC, h[0]))[1] is unit]


def immobilized(state: CampaignState, u) -> bool:
    """A vehicle Immobilized at the firefight's end (`end --repair SIDE:V=immobilized`), which does not redeploy
    (3.211: redeployment is a MPh). One test for the refusal (`redeploy`, switch redeployment_limits: revision 2
    on; revision 1 redeployed it) and for what 3.2 owes (ruling R48), so the two never disagree."""
    return u.kind == Kind.VEHICLE and state.reph.repairs_owed.get((u.side, u.id)) == "immobilized" and \
        rules_for(state).redeployment_to_nearest_cthc()


def cannot_redeploy(state: CampaignState, u) -> bool:
    """Ruling R48, under every revision (promise 28): an Immobilized vehicle where `redeploy` refuses it (3.211), or
    a unit whose side holds no friendly-controlled hex to redeploy to (3.214, 3.216: none within reach; every
    revision refuses every hex then), owes no 3.2 redeployment."""
    return immobilized(state, u) or (u.hex is not None and not state.map_control().cthc_hexes(u.side))


def stranded_fate(state: CampaignState) -> tuple[list, list]:
    """Ruling R48, when 3.2 is left: (eliminated, isolated) of the units on map that could not redeploy, each
    a (side, unit, rule). In the enemy MLR it failed to redeploy (3.214: eliminated, a vehicle its wreck); an
    Immobilized vehicle outside a friendly MLR and beyond 3 hexes of a friendly MMC, AFV or Gun-armed
    vehicle after all redeployment is flipped to its wreck (3.23); one that stays outside a friendly MLR
    (Uncontrolled Terrain, No Man's Land) is Isolated (3.216, 3.217)."""
    mc, grid = state.map_control(), state.grid()
    r3 = rules_for(state).isolated_immobilized_wrecked()
    lost, isolated = [], []
    live = _state.active_units(state)[0]  # the units not settled, in order: every one on the map among them
    held: dict[str, bool] = {}  # side -> it holds a friendly-controlled hex (cannot_redeploy's test, asked once a side)
    for u in live:
        if u.status not in PRESENT or not u.hex or u.redeployed:
            continue
        if u.side not in held:
            held[u.side] = bool(mc.cthc_hexes(u.side))
        if held[u.side] and not immobilized(state, u):  # cannot_redeploy (ruling R48) on the picture held
            continue
        where = mc.situation(u.hex, u.side)
        if where == "friendly_mlr" or (where == "isolated" and not r3):
            continue  # revision 2 owed no 3.215 redeployment of a vehicle there and applied it no 3.23: kept so
        if where == "enemy_mlr":
            lost.append((u.side, u.id, "3.214"))
            continue
        if not immobilized(state, u):
            if where != "isolated" and not u.isolated:
                isolated.append((u.side, u.id, "3.216" if where == "uncontrolled" else "3.217"))
            continue
        near = any(f.side == u.side and f is not u and f.hex and f.status in PRESENT
                   and _keeps_3_23(state, f) and grid.distance(f.hex, u.hex) <= 3
                   for f in live)
        if not near:
            lost.append((u.side, u.id, "3.23"))
        elif not u.isolated and where != "isolated":
            isolated.append((u.side, u.id, "3.216" if where == "uncontrolled" else "3.217"))
    return lost, isolated


def _keeps_3_23(state: CampaignState, f) -> bool:
    """3.23 "a friendly MMC/AFV/Gun-armed Vehicle": a squad, HS or crew, or a vehicle the ledger knows to be an
    AFV: of an `afv` RG, or of a counter the card's `[counters]` gives `kind = "afv"` (ruling R95, switch
    afv_proximity: a `vehicle` RG's counter is not known to be armoured or Gun-armed; before it, any vehicle)."""
    if f.kind in (Kind.SQUAD, Kind.HALF_SQUAD, Kind.CREW):
        return True
    if f.kind != Kind.VEHICLE:
        return False
    if not rules_for(state).vehicle_saves_only_if_afv():
        return True
    pur = state.purchase(f.purchase, f.side) if f.purchase else None
    if pur is not None and pur.kind == "afv":
        return True

    c = counters.lookup(state.card.sides[f.side].nationality, f.name, state.card.counter_overrides(f.side))
    return c is not None and c.kind == "afv"


def repair_place_refusal(state: CampaignState, side: str, unit) -> str | None:
    """3.46 (revision switch repair_rules): why an Immobilized vehicle cannot be repaired where it stands
    (only in a friendly MLR not adjacent to an enemy CTHC), or None."""
    if unit is None or not unit.hex:
        return None
    mc = state.map_control()
    if mc.situation(unit.hex, side) != "friendly_mlr" or mc.adjacent_to_enemy_cthc(unit.hex, side):
        return (f"{unit.id} in {unit.hex} is not in a friendly MLR clear of enemy CTHCs: an Immobilized vehicle is "
                "repaired only there")
    return None


def repair_refusal(state: CampaignState, side: str, item: str, unit, kind: str) -> str | None:
    """3.46: why a repair dr of `item` (`unit`, None where the OB lists no such unit) for `kind` is refused where it
    stands, whatever the command adds, or None. `repair` refuses for these reasons and 3.46 owes no repair they
    refuse (ruling R48, every revision: what stays unrepaired is owed again at the next RePh's 3.46): a weapon
    held by an Isolated unit gets no malfunction or Low Ammo repair (3.46, every revision), and (switch
    repair_rules) only a vehicle is Immobilized, repaired only in a friendly MLR clear of enemy CTHCs."""
    if kind in ("malfunction", "low_ammo") and unit is not None and unit.isolated:
        return f"{item} is possessed by an Isolated unit: no repair"
    if kind == "immobilized" and rules_for(state).repair_limits_apply():
        if unit is None or unit.kind != Kind.VEHICLE:
            return f"{item} is not a vehicle: only a vehicle is Immobilized"
        return repair_place_refusal(state, side, unit)
    return None


def mmc_in_play(state: CampaignState, side: str) -> list:
    """The side's MMC in play (A1.1: squads, half-squads, crews): what a 3.52 dagger Casualty Reduction may reduce.
    Ruling R100: 3.52 owes the reduction only while there is one (`casualties --reduced` refuses every other
    unit), under every revision that owes it."""
    return [x for x in state.side_units(side) if is_mmc(x.kind) and x.status in PRESENT]


def enters_only(state: CampaignState, u) -> bool:
    """Ruling R50: the unit belongs to an RG bought to enter (`--mode entry`) for this firefight, so it does not
    set up on the map at 2.6 (rules revision 3)."""
    pur = state.purchase(u.purchase, u.side) if u.purchase else None
    return pur is not None and pur.mode == "entry" and pur.firefight == state.firefight and \
        rules_for(state).entering_units_do_not_set_up()


CVP_RULES = ("1.31", "R5", "2.421")  # a winner decided by the CVP (decided again with RePh losses, 3.11)


def cthc_clusters(state: CampaignState, side: str) -> list[set[str]]:
    """The side's CTHCs, each a set of hexes. Rules revision 3 (switch cthc_per_hex, ruling R53): the cluster of
    each controlled Strategic Terrain hex, its hexes within 2 that are the side's CTHC (No Man's Land is part of
    no CTHC, 1.4), so clusters overlap; before: the CTHC hexes joined by adjacency."""
    mc, grid = state.map_control(), state.grid()
    per_hex = rules_for(state).cthc_per_strategic_hex()
    memo = caches.current().clusters
    hit = memo.get((side, per_hex))
    if hit is not None and hit[0] is mc and hit[1] is grid:  # a map-control picture never changes
        return [set(c) for c in hit[2]]
    out = _clusters(mc, grid, side, per_hex)
    memo[(side, per_hex)] = (mc, grid, tuple(frozenset(c) for c in out))
    return out


# caches.clusters: (side, cthc_per_hex) -> (the map-control picture, the grid, its clusters) last asked for:
# a run of 3.2 redeployments asks for the same picture's clusters at every command (the picture and grid
# are held, so an entry never stands for a new one at a freed one's address)


def _clusters(mc, grid, side: str, per_hex: bool) -> list[set[str]]:
    if per_hex:
        held = sorted((h for h, hc in mc.hexes.items() if hc.controller == side), key=grid.index)
        return [{x for x in grid.within(h, 2) if mc.hexes[x].cthc == side} for h in held]
    mine = {h for h, hc in mc.hexes.items() if hc.cthc == side}
    clusters, seen = [], set()
    for h in sorted(mine, key=grid.index):
        if h in seen:
            continue
        todo, part = [h], set()
        while todo:
            x = todo.pop()
            if x in part:
                continue
            part.add(x)
            todo += [n for n in grid.neighbours(x) if n in mine and n not in part]
        seen |= part
        clusters.append(part)
    return clusters


def redeployment_attacker_at_2_5(state: CampaignState) -> str | None:
    """2.5: the Attacker for redeployment; in a Dual Attack, the side that was the Attacker (or moved
    first) in the most recent non-idle firefight before this one."""
    ff = state.ff
    if ff.type and ff.type not in ("idle", "dual"):
        return ff.attacker
    for prev in reversed(state.firefights[: state.firefight - 1]):
        if prev.type and prev.type != "idle":
            return prev.attacker or prev.move_first
    return state.card.campaign.initial_attacker


def defender_may_redeploy_2_5(st: CampaignState, side: str) -> bool:
    """Ruling R85: the Defender has neither begun its 2.5 Option A redeployment nor said it has done, and still
    has a unit that may redeploy (in play, in its friendly MLR, not redeployed at 3.2 (ruling R28), not an
    Immobilized vehicle)."""
    if _state.Done("redeploy-2.5", side) in st.reph.done:
        return False
    mc = st.map_control()
    r28 = rules_for(st).redeploys_once_per_reph()
    return any(u.status in PRESENT and not (r28 and u.redeployed) and not immobilized(st, u)
               and situation_of(st, u, mc) == "friendly_mlr" for u in st.side_units(side))


def nearest_cthc(state: CampaignState, unit) -> set[str]:
    """3.214/3.216/3.217: the friendly-controlled hexes of the nearest friendly CTHC (every cluster of the
    side's CTHC hexes at the least distance from the unit), where it may redeploy to."""
    if not unit.hex:
        return set()
    grid = state.grid()
    clusters = cthc_clusters(state, unit.side)
    if not clusters:
        return set()
    dist = [min(grid.distance(unit.hex, x) for x in c) for c in clusters]
    best = min(dist)
    return set().union(*(c for c, d in zip(clusters, dist) if d == best))


def nearest_cthc_refusal(state: CampaignState, unit, to: str) -> str | None:
    """3.214, 3.216, 3.217: why a unit that redeploys to the nearest friendly CTHC (Rules.redeploys_to_nearest_cthc)
    may not go to `to`: it is outside every nearest one."""
    near = nearest_cthc(state, unit)
    if near and to not in near:
        example = min(near, key=state.grid().index)
        return f"{to} is not in the nearest {unit.side} CTHC to {unit.hex} (e.g. {example})"
    return None


def nearest_friendly_hex(state: CampaignState, unit) -> str | None:
    """3.214-3.217: the friendly-controlled hex of the nearest friendly CTHC (fewest hexes, then grid
    order), where a unit outside its MLR tries to redeploy to; None if the side has no CTHC."""
    if not unit.hex:
        return None
    mc, grid = state.map_control(), state.grid()
    best = min(((grid.distance(unit.hex, h), grid.index(h), h) for h, hc in mc.hexes.items()
                if hc.cthc == unit.side), default=None)
    return best[2] if best else None


# 3.52 Fortification Clearance: what may be attempted (the `clear` command and status's options); the
# items and what each clears as are cg/items.py's (CLEAR_ITEMS: rubble, mines, wire, roadblock, set_dc,
# flame, panji)


def _present(st: CampaignState, hx: str, item: str) -> bool:
    return any(i.clears_as == item for i in st.ground.terrain.get(hx, []))  # 3.52: all mines are one item


def clear_refusal(st: CampaignState, hx: str, item: str) -> tuple[str, str] | None:
    """Why an attempt on `item` in `hx` is refused this RePh (message, rule), or None."""
    if not _present(st, hx, item):
        return f"the ledger holds no {item} in {hx}", "3.52"
    if (hx, item) in st.reph.cleared:
        return f"{item} in {hx} has had its one attempt this RePh", "3.52"
    if hx in st.reph.ap_failed:
        return f"a failed A-P mine attempt in {hx} stops other attempts there", "3.52"
    if item == "rubble" and hx in st.card.map.buildings:
        return f"{hx} is a building hex: only fallen rubble outside a building depiction is cleared", "B24.71"
    return None


def clearable(st: CampaignState, hx: str, item: str) -> bool:
    """An attempt on `item` in `hx` is open this RePh (the side's CTHC/MLR is checked apart)."""
    return clear_refusal(st, hx, item) is None


REPAIRABLE = ("sw", "gun", "vehicle", "other")  # unit kinds a 3.46 repair dr can be for


def mlr_of(state: CampaignState, side: str, hx: str | None) -> frozenset | None:
    """3.42/3.43 "the same Friendly MLR": the connected part of the side's MLR hexes holding `hx` (MLR A, B...);
    None where the hex is unknown or outside every friendly MLR."""
    if not hx:
        return None
    mine = state.map_control().mlr_hexes(side)
    if hx not in mine:
        return None
    grid = state.grid()
    part, todo = set(), [hx]
    while todo:
        x = todo.pop()
        if x not in part:
            part.add(x)
            todo += [n for n in grid.neighbours(x) if n in mine and n not in part]
    return frozenset(part)


def heroes_in_mlr(state: CampaignState, side: str, hx: str, heroes: list) -> list:
    """3.43: the Heroes of `heroes` within the MLR of `side` that holds `hx` (Rules.hero_combines_within_mlr): by
    recorded hexes, a Hero with none is within it (ruling R33)."""
    mine = mlr_of(state, side, hx)
    return [h for h in heroes if not h.hex or (mine is not None and mlr_of(state, side, h.hex) == mine)]
