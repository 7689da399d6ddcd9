"""Where units stand after a firefight (3.212) and who owes a 3.2 redeployment, in rule order; what
3.52 clearance may still attempt; which units a 3.46 repair dr can be for."""
from __future__ import annotations

from cg import revision
from cg.state import CampaignState, active_units, other
from cg.units import Kind, PRESENT


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


_KNOWN: list = [None, {}]  # redeployment_owed: the last picture and the 3.212 situations asked of it


def redeployment_owed(state: CampaignState) -> list[tuple[str, str, str]]:
    """(side, unit, rule) for every unit that must redeploy at 3.2, in the order 3.214-3.217."""
    att = attacker_for_redeployment(state)
    mc = state.map_control()
    where: dict[str, list] = {}
    # (hex, side) -> situation: a stack asks once, and a run of 3.2 redeployments on one picture (held, so
    # never a freed one's) asks each place once; situation() is a pure function of the picture
    if _KNOWN[0] is not mc:
        _KNOWN[:] = (mc, {})
    known: dict[tuple, str] = _KNOWN[1]
    r48 = revision.of(state).immobilized_stays  # cannot_redeploy is False for every unit without it
    for u in active_units(state)[0]:  # the units not settled: every one on the map among them
        if u.status not in PRESENT or u.redeployed or not u.hex:
            continue
        if r48 and cannot_redeploy(state, u):  # ruling R48: it owes none; leaving 3.2 decides what becomes of it
            continue
        at = (u.hex, u.side)
        situation = known.get(at)
        if situation is None:
            situation = known[at] = mc.situation(u.hex, u.side)
        where.setdefault(situation, []).append(u)
    out = []
    for situation, rule in ORDER:
        for side in (att, other(att)):
            out += [(side, u.id, rule) for u in where.get(situation, ()) if u.side == side]
    return out


def immobilized(state: CampaignState, u) -> bool:
    """A vehicle Immobilized at the firefight's end (`end --repair SIDE:V=immobilized`), under ruling R48."""
    return u.kind == Kind.VEHICLE and state.reph.repairs_owed.get((u.side, u.id)) == "immobilized" and \
        revision.of(state).immobilized_stays


def cannot_redeploy(state: CampaignState, u) -> bool:
    """Ruling R48: an Immobilized vehicle (3.211: it cannot move), or a unit whose side holds no friendly-
    controlled hex to redeploy to (3.214, 3.216: none within reach), owes no 3.2 redeployment."""
    if not revision.of(state).immobilized_stays:
        return False
    return immobilized(state, u) or (u.hex is not None and not state.map_control().cthc_hexes(u.side))


def stranded_fate(state: CampaignState) -> tuple[list, list]:
    """Ruling R48, when 3.2 is left: (eliminated, isolated) of the units on map that could not redeploy, each
    a (side, unit, rule). In the enemy MLR it failed to redeploy (3.214: eliminated, a vehicle its wreck); an
    Immobilized vehicle outside a friendly MLR and beyond 3 hexes of a friendly MMC, AFV or Gun-armed
    vehicle after all redeployment is flipped to its wreck (3.23); one that stays outside a friendly MLR
    (Uncontrolled Terrain, No Man's Land) is Isolated (3.216, 3.217)."""
    mc, grid = state.map_control(), state.grid()
    lost, isolated = [], []
    for u in list(state.units.values()):
        if u.status not in PRESENT or not u.hex or u.redeployed or not cannot_redeploy(state, u):
            continue
        where = mc.situation(u.hex, u.side)
        if where == "friendly_mlr":
            continue
        if where == "enemy_mlr":
            lost.append((u.side, u.id, "3.214"))
            continue
        if not immobilized(state, u):
            if where != "isolated" and not u.isolated:
                isolated.append((u.side, u.id, "3.216" if where == "uncontrolled" else "3.217"))
            continue
        near = any(f.side == u.side and f is not u and f.hex and f.status in PRESENT
                   and f.kind in (Kind.SQUAD, Kind.HALF_SQUAD, Kind.CREW, Kind.VEHICLE) and grid.distance(f.hex, u.hex) <= 3
                   for f in state.units.values())
        if not near:
            lost.append((u.side, u.id, "3.23"))
        elif not u.isolated and where != "isolated":
            isolated.append((u.side, u.id, "3.216" if where == "uncontrolled" else "3.217"))
    return lost, isolated


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


def enters_only(state: CampaignState, u) -> bool:
    """Ruling R50: the unit belongs to an RG bought to enter (`--mode entry`) for this firefight, so it does not
    set up on the map at 2.6 (rules revision 3)."""
    pur = state.purchase(u.purchase, u.side) if u.purchase else None
    return pur is not None and pur.mode == "entry" and pur.firefight == state.firefight and \
        revision.of(state).entry_not_set_up


def winner_by_cvp(ff) -> tuple[str | None, str]:
    """1.31: the side that amassed more CVP (= the enemy's CVP lost) wins; a tie goes to the defender;
    in a Dual Attack the side that moved second is the defender (ruling R5)."""
    amassed = {s: ff.cvp_lost[other(s)] for s in ("axis", "allied")}
    if amassed["axis"] != amassed["allied"]:
        return max(amassed, key=amassed.get), "1.31"
    if ff.attacker:
        return other(ff.attacker), "1.31"
    return (other(ff.move_first) if ff.move_first else None), "R5"


def cthc_clusters(state: CampaignState, side: str) -> list[set[str]]:
    """The side's CTHCs, each a set of hexes. Rules revision 3 (switch cthc_per_hex, ruling R53): the cluster of
    each controlled Strategic Terrain hex, its hexes within 2 that are the side's CTHC (No Man's Land is part of
    no CTHC, 1.4), so clusters overlap; before: the CTHC hexes joined by adjacency."""
    mc, grid = state.map_control(), state.grid()
    per_hex = revision.of(state).cthc_per_hex
    hit = _CLUSTERS.get((side, per_hex))
    if hit is not None and hit[0] is mc and hit[1] is grid:  # a map-control picture never changes
        return [set(c) for c in hit[2]]
    out = _clusters(mc, grid, side, per_hex)
    _CLUSTERS[(side, per_hex)] = (mc, grid, tuple(frozenset(c) for c in out))
    return out


# (side, cthc_per_hex) -> (the map-control picture, the grid, its clusters) last asked for: a run of 3.2
# redeployments asks for the same picture's clusters at every command (the picture and grid are held, so
# an entry never stands for a new one at a freed one's address)
_CLUSTERS: dict = {}


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
