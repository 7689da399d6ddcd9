"""The checks of a published CG Card's boards, map and order of battle (docs/cg-card.md, "Keys of a
published CG Card"): the campaign's theater, booby traps, fortifications and balance; each firefight's
weather, moon, turns and attacker; the map's boards, terrain, entry areas and frozen water (and the
Woods-Line they make); the RGs' availability, reserve and commissars; each side's OB given, its counters
and who controls and owns what it sets up. Every key is optional; its default reproduces the basic
format. cg/card_schema.py calls these checks; each adds every problem it finds to the `_Checker`.
"""
from __future__ import annotations

from typing import Any, cast

from cg.card import (
    BALANCE_EFFECTS, EDGES, MOONS, OB_SETUPS, QUALITIES, RG_KINDS, SIDES, TERRAIN_KEYS, Balance, Ob, hexgrid,
)
from cg.card_checker import _Checker, _hexes, _join, _show, _type_name
from cg.card_as_printed import UncheckedBoards, area_set, check_area, check_fortifications, real_grid
from cg.counters import validate_overrides
from cg.state import classify_map, ob_deal
from cg.units import OWNERS, Kind  # OWNERS, 2.37: who a leader, a SW or a Gun sets up with (ruling R94)

CAMPAIGN_KEYS = ("theater", "booby_traps", "fortifications", "balance", "balance_chosen")
FIREFIGHT_KEYS = ("weather", "moon", "turns", "attacker", "fsr")
MAP_KEYS = ("boards", *TERRAIN_KEYS, "entry", "frozen")
SIDE_KEYS = ("ob",)
RG_KEYS = ("available_from", "available_until", "max_per_reph", "reserve", "commissar", "assault_engineers")
OB_KEYS = (
    "id", "name", "kind", "quality", "units", "leaders", "leader_drs", "platoons", "setup", "enters", "hexes",
    "armor_leader", "area",  # area: as printed (cg/card_as_printed.py)
)
FORTIFICATION_EXTRA = ("hip",)  # 2.38 HIP is bought with FP too: its limit counts units hidden


def _texts(c: _Checker, tbl: dict, key: str, path: str) -> list[str] | None:
    return c.texts(tbl, key, path, default=())


def check_campaign(c: _Checker, tbl: dict) -> dict | None:
    """theater, booby_traps, fortifications, balance: Campaign keyword values, or None on a problem."""
    path = "campaign"
    n0 = len(c.problems)
    out: dict[str, Any] = {}
    theater = c.text(tbl, "theater", path, default=None)
    out["theater"] = theater.lower() if theater else None
    out["booby_traps"] = c.boolean(tbl, "booby_traps", path, default=None)
    # 2.38: each kind of the table once, those priced in FP (cg/card_as_printed.py)
    out["fortifications"] = check_fortifications(c, tbl, path)
    balance = []
    for i, item in enumerate(c.array(tbl, "balance", path, default=()) or ()):
        bpath = f"campaign.balance[{i}]"
        if not isinstance(item, dict):
            c.add(bpath, f"must be a table, not {_type_name(item)}")
            continue
        c.unknown_keys(item, ("side", "text", *BALANCE_EFFECTS), bpath)
        side = c.text(item, "side", bpath, SIDES)
        text = c.text(item, "text", bpath)
        effects = {k: c.integer(item, k, bpath, default=0) for k in BALANCE_EFFECTS}
        if side is not None and text is not None and None not in effects.values():
            balance.append(Balance(side=side, text=text, **cast(dict[str, int], effects)))  # none None (checked)
    out["balance"] = tuple(balance)
    chosen = _texts(c, tbl, "balance_chosen", path)  # written by `plcg new --balance`, already applied
    for i, key in enumerate(chosen or ()):
        side, _, n = key.partition(":")
        own = [b for b in balance if b.side == side]
        if not n.isdigit() or not 1 <= int(n) <= len(own):
            c.add(f"campaign.balance_chosen[{i}]", f"{_show(key)} is not one of the card's Balance Provisions (1.3)")
    out["balance_chosen"] = tuple(chosen or ())
    return out if len(c.problems) == n0 else None


# -- [[firefights]] -----------------------------------------------------------------------------------
def check_firefight(c: _Checker, item: dict, path: str, time: str | None) -> dict | None:
    n0 = len(c.problems)
    out: dict[str, Any] = {}
    out["weather"] = c.text(item, "weather", path, default=None)
    moon = c.text(item, "moon", path, MOONS, default=None)
    if moon is not None and time == "day":
        c.add(f"{path}.moon", "is for a night firefight only (2.74)")
    out["moon"] = moon
    out["turns"] = c.integer(item, "turns", path, lo=1, default=None)
    out["attacker"] = c.text(item, "attacker", path, SIDES, default=None)
    fsr = _texts(c, item, "fsr", path)
    out["fsr"] = tuple(fsr or ())
    return out if len(c.problems) == n0 else None


# -- [map] --------------------------------------------------------------------------------------------
def check_boards(c: _Checker, tbl: dict):
    """The map's geomorphic boards as a cg.boards.Geometry, or None (absent, or a problem added)."""
    raw = tbl.get("boards")
    if raw is None or (isinstance(raw, list | tuple) and not raw):
        return None
    grids = hexgrid()
    try:
        grids.boards().geometry(raw)  # the layout's own check
        return grids.board_grid([[str(b) for b in row] for row in raw])
    except (ValueError, TypeError) as e:
        c.add("map.boards", str(e))

        return UncheckedBoards()  # the hexes are checked for their form only: one problem, not one per hex


def check_terrain(c: _Checker, tbl: dict, grid) -> dict | None:
    """woods, orchard, brush, grain, roads, bridges: hex lists in map order."""
    n0 = len(c.problems)
    order = grid if hasattr(grid, "canonical") else None
    out = {}  # a board map's hexes sort in its own order
    for key in TERRAIN_KEYS:
        hexes = c.hex_list(tbl, key, "map", grid, default=())
        out[key] = _hexes(hexes or (), order)
    return out if len(c.problems) == n0 else None


def check_frozen(c: _Checker, tbl: dict, grid, water) -> tuple[str, ...] | None:
    """frozen (ruling R96): hexes of `water` frozen over for the CG, each one the card lists as water."""
    n0 = len(c.problems)
    frozen = c.hex_list(tbl, "frozen", "map", grid, default=())
    for j, h in enumerate(frozen or ()):
        if water is not None and h not in water:
            c.add(f"map.frozen#{j + 1}", f"{h} is not a water hex of the card (`water`): only water freezes")
    return tuple(frozen) if frozen is not None and len(c.problems) == n0 else None


def check_entry(c: _Checker, tbl: dict, grid) -> dict | None:
    """entry = { axis = ["east", "23A1-23A10"] }: each item an edge name or a FIRST-LAST hex range."""
    entry = c.table(tbl, "entry", "map", default={})
    if entry is None:
        return None
    n0 = len(c.problems)
    c.unknown_keys(entry, SIDES, "map.entry")
    out: dict[str, tuple[str, ...]] = {}
    for side in SIDES:
        items = _texts(c, entry, side, "map.entry") if side in entry else []
        good = []
        for i, item in enumerate(items or ()):
            ipath = f"map.entry.{side}[{i}]"
            if item.lower() in EDGES:
                good.append(item.lower())
                continue
            ends = item.split("-")
            if len(ends) != 2:
                c.add(ipath, f"{_show(item)} is not an edge ({' | '.join(EDGES)}) or a hex range such as \"A1-A10\"")
                continue
            a, b = (c.hex_value(e, ipath, grid) for e in ends)
            if a is not None and b is not None:
                good.append(f"{a}-{b}")
        if good:
            out[side] = tuple(good)
    return out if len(c.problems) == n0 else None


def entry_hexes(spec_items: tuple[str, ...], grid) -> list[str]:
    """The hexes of a side's Entry Area: whole edges, and hex ranges (the shortest line between the ends)."""
    out: list[str] = []
    for item in spec_items:
        if item in EDGES:
            out += sorted(grid.edge(item), key=grid.index)
        else:
            a, b = item.split("-")
            out += grid.line(a, b)
    return list(dict.fromkeys(out))


def woods_line(grid, woods: tuple[str, ...]) -> set[str]:
    """1.4 Woods-Line: in a group of 3 or more connected woods hexes, those adjacent to non-woods terrain.

    # ruling R37: only on-map neighbours count; a woods hex whose every on-map neighbour is woods is not
    # on the Woods-Line, even at the map's edge.
    """
    wood = set(woods)
    seen: set[str] = set()
    out: set[str] = set()
    for start in woods:
        if start in seen:
            continue
        group, todo = [], [start]
        seen.add(start)
        while todo:
            h = todo.pop()
            group.append(h)
            for n in grid.neighbours(h):
                if n in wood and n not in seen:
                    seen.add(n)
                    todo.append(n)
        if len(group) >= 3:
            out |= {h for h in group if any(n not in wood for n in grid.neighbours(h))}
    return out


# -- [[sides.X.ob]], RG keys ----------------------------------------------------------------------------
def check_rg_extra(c: _Checker, item: dict, path: str, n_firefights: int | None, reserves: Any) -> dict | None:
    n0 = len(c.problems)
    hi = n_firefights
    frm = c.integer(item, "available_from", path, lo=1, hi=hi, default=1)
    until = c.integer(item, "available_until", path, lo=1, hi=hi, default=None)
    if frm is not None and until is not None and until < frm:
        c.add(f"{path}.available_until", f"{until} is before available_from {frm}")
    per = c.integer(item, "max_per_reph", path, lo=1, default=None)
    mx = item.get("max")
    if per is not None and isinstance(mx, int) and not isinstance(mx, bool) and per > mx:
        c.add(f"{path}.max_per_reph", f"{per} is more than max {mx} for the whole CG")
    out = {
        "available_from": frm,
        "available_until": until,
        "max_per_reph": per,
        "reserve": c.boolean(item, "reserve", path, default=True),
        "commissar": c.boolean(item, "commissar", path, default=False),
        "assault_engineers": c.boolean(item, "assault_engineers", path, default=None),
    }
    if out["assault_engineers"] and item.get("kind") != "infantry":  # ruling R96
        c.add(f"{path}.assault_engineers", f"is for an infantry RG (3.52: Assault Engineer squads), not "
                                           f"{_show(item.get('kind'))}")
    return out if len(c.problems) == n0 else None


def check_ob(c: _Checker, tbl: dict, side: str, grid, control: list[str] | None, order) -> tuple[Ob, ...] | None:
    """The OB given: each group's hexes on the map and inside the side's initial control (1.32)."""
    path = f"sides.{side}"
    raw = c.array(tbl, "ob", path, default=())
    if raw is None:
        return None
    n0 = len(c.problems)
    out: list[Ob] = []
    ids: dict[str, int] = {}
    for i, item in enumerate(raw):
        opath = f"{path}.ob[{i}]"
        if not isinstance(item, dict):
            c.add(opath, f"must be a table, not {_type_name(item)}")
            continue
        c.unknown_keys(item, OB_KEYS, opath)
        oid = c.text(item, "id", opath)
        if oid is not None:
            oid = oid.upper()
            if oid in ids:
                c.add(f"{opath}.id", f"{oid} is already used by OB group #{ids[oid] + 1}")
            ids[oid] = i
            rgs = tbl.get("rg")  # another type than a list: the side's own check says so
            rg_ids = {str(r.get("id", "")).strip().upper() for r in (rgs if isinstance(rgs, list) else ())
                      if isinstance(r, dict)}
            if oid in rg_ids:
                c.add(f"{opath}.id", f"{oid} is also an RG id of {side}: an OB group needs its own id")
        name = c.text(item, "name", opath)
        kind = c.text(item, "kind", opath, RG_KINDS)
        armor = c.boolean(item, "armor_leader", opath, default=False)
        quality = c.text(item, "quality", opath, QUALITIES, default=None)
        if kind == "infantry" and quality is None and item.get("quality") is None:
            c.add(f"{opath}.quality", f"missing (infantry: {' | '.join(QUALITIES)})")
        units = _texts(c, item, "units", opath)
        if units is not None and not units and not item.get("leaders"):
            c.add(f"{opath}.units", "gives no unit and no leader")
        leaders = _texts(c, item, "leaders", opath)
        drs = c.integer(item, "leader_drs", opath, lo=0, default=0)
        platoons = c.integer(item, "platoons", opath, lo=0, default=0)
        setup = c.text(item, "setup", opath, OB_SETUPS, default="on-map")
        enters = c.integer(item, "enters", opath, lo=1, default=None)
        hexes = c.hex_list(item, "hexes", opath, grid, default=())
        area = check_area(c, item, opath, grid)  # the setup area as printed
        if setup == "entry" and enters is None:
            c.add(f"{opath}.enters", "missing (setup = \"entry\": the game turn it enters on)")
        if setup == "on-map" and enters is not None:
            c.add(f"{opath}.enters", "is for setup = \"entry\" only")
        if setup == "on-map" and hexes is not None and not hexes and not area:
            c.add(f"{opath}.hexes", "missing (setup = \"on-map\": where it sets up; or its printed `area`)")
        if area and setup == "entry":
            c.add(f"{opath}.area", "is for setup = \"on-map\" only (an entering group comes on at the Entry Area)")
        elif area and hexes and grid is not None and not getattr(grid, "unchecked", False):
            inside = area_set(area, real_grid(grid))
            for j, h in enumerate(hexes):
                if h not in inside:
                    c.add(f"{opath}.hexes#{j + 1}", f"{h} is outside its setup area {', '.join(area)}")
        if setup == "entry" and hexes:
            c.add(f"{opath}.hexes", "is for setup = \"on-map\" only (an entering group comes on at the Entry Area)")
        if control is not None:
            for j, h in enumerate(hexes or ()):
                if h not in control:
                    c.add(
                        f"{opath}.hexes[{j}]",
                        f"{h} is not in {side}'s initial control (1.32: the OB given sets up in it)",
                    )
        if len(c.problems) == n0:  # no problem added: every value read (a None is said as a problem)
            out.append(Ob(
                id=cast(str, oid), name=cast(str, name), kind=cast(str, kind), quality=quality,
                units=tuple(cast(list[str], units)), leaders=tuple(cast(list[str], leaders)),
                leader_drs=cast(int, drs), platoons=cast(int, platoons), setup=cast(str, setup), enters=enters,
                hexes=tuple(dict.fromkeys(cast(list[str], hexes))),  # the card's order: the deal follows it (ruling R94)
                armor_leader=cast(bool, armor), area=area or (),
            ))
    return tuple(out) if len(c.problems) == n0 else None


def check_counters(c: _Checker, data: dict) -> dict | None:
    """[counters] (ruling R34): checked by cg.counters.validate_overrides."""
    raw = data.get("counters")
    if raw is None:
        return {}

    problems = validate_overrides(raw)
    for p in problems:
        where, _, what = p.partition(": ")
        c.add(where, what)
    return raw if not problems else None


def check_ob_control(c: _Checker, map_spec, sides: dict) -> None:
    """1.32: an OB group sets up inside its side's initial control (its CTHC or MLR at the start)."""
    if not any(g.hexes for s in sides.values() for g in s.ob):
        return
    control = {h: side for side, s in sides.items() for h in s.control}
    mc = classify_map(map_spec.grid(), frozenset(map_spec.strategic), control, dict(map_spec.friendly_edge))
    for side, s in sides.items():
        for i, group in enumerate(s.ob):
            for j, h in enumerate(group.hexes):
                hc = mc.hexes[h]
                held = hc.cthc == side or (side in hc.mlr and hc.cthc is None and not hc.nml)
                if not held:
                    c.add(
                        f"sides.{side}.ob[{i}].hexes[{j}]",
                        f"{h} is outside {side}'s initial control (1.32: neither its CTHC nor inside its MLR)",
                    )


def check_ob_ownership(c: _Checker, sides: dict) -> None:
    """2.37 for the OB given (ruling R94): the Initial Firefight is the first its groups take part in, so the
    placement the card gives (cg.state.ob_deal: its units dealt over its hexes in the card's order) must
    stand each leader with a MMC/AFV of its group and each SW/Gun with a unit of it."""
    for side, s in sides.items():
        for i, group in enumerate(s.ob):
            if not group.hexes:
                continue
            dealt = ob_deal(group)
            for n, (name, kind, hx) in enumerate(dealt, 1):
                if kind not in OWNERS:
                    continue
                if not any(m != n and k in OWNERS[kind] and h == hx for m, (_x, k, h) in enumerate(dealt, 1)):
                    what = "MMC/AFV" if kind == Kind.LEADER else "unit"
                    c.add(f"sides.{side}.ob[{i}]", (
                        f"its unit {n} ({name}) is dealt to {hx} with no {what} of {group.id} (2.37): the n-th unit "
                        f"of `units` then `leaders` sets up in hexes[(n - 1) mod {len(group.hexes)}]; reorder "
                        "`units` or `hexes`"))


def check_attackers(c: _Checker, campaign, firefights) -> None:
    """1.34: the Initial Firefight's historical ATTACKER, where given, is the campaign's initial_attacker."""
    first = firefights[0].attacker
    if first is not None and first != campaign.initial_attacker:
        c.add("firefights[0].attacker", f"{first} is not campaign.initial_attacker {campaign.initial_attacker} (2.4)")
