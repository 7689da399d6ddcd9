"""What leaving a step records by itself: the events `next` decides before its `step_left` (3.25 Isolated
units, 3.31 fire, 3.33 TVP, 3.42 regrouping, 3.43 heroes, 3.51 SAN). A step names its function here by
`on_leave` (cg/steps/step.py); the deciding machine (cg/machine.py) runs it. Apart from the step tables
because they build events: `status` reads the steps and never imports the event classes (issue 36 item 2).
"""
from __future__ import annotations

from cg import counters, tables, terrain
from cg.card import BURNABLE
from cg.items import Kept
from cg.rules import Rules
from cg.rules import counter_table, mlr_of, stranded_fate
from cg.sequence import StepId
from cg.state import SIDES, CampaignState, active_units, expand_units
from cg.units import PRESENT, Kind
from events import types as ev


def redeployment(st: CampaignState, rules: Rules) -> list:
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


def consequences(st: CampaignState, rules: Rules) -> list:
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


def regrouping(st: CampaignState, rules: Rules) -> list:
    """3.42 (ruling R62): "All same-type half-squads in the same Friendly MLR must Recombine ..., leaving <= 1 of each
    type": pairs of one counter in one MLR (a unit with no recorded hex is in its friendly MLR), into the
    squad of the RG's card whose HS it is, else the one squad of the counter table (where two share the HS,
    the pair is left as it is: the table cannot tell which)."""
    return _recombined(st) if rules.regroups_leaving(StepId.REGROUPING) else []


def _recombined(st: CampaignState) -> list:
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


def heroes(st: CampaignState, rules: Rules) -> list:
    return _heroes_removed(st) if rules.regroups_leaving(StepId.HEROES) else []


def _heroes_removed(st: CampaignState) -> list:
    out: list = []
    for side in SIDES:  # 3.43, ruling R62: "Remove any Heroes that cannot combine until each side has <1 (at most one)"
        heroes = [u.id for u in st.side_units(side) if u.hero and u.kind != Kind.LEADER
                  and u.status in PRESENT]
        if len(heroes) > 1:
            out.append(ev.HeroesRemoved(side=side, units=tuple(heroes[1:])))
    return out


def san(st: CampaignState, rules: Rules) -> list:
    """3.51: each side's SAN adjusted by the table."""
    out: list = []
    for side in SIDES:
        before = st.sides[side].san
        out.append(ev.SanAdjusted(side=side, before=before, after=tables.san_adjust(before)))
    return out

