"""Map control of the campaign's current control (1.4) and the terrain it keeps (CG5)."""
from __future__ import annotations

from cg.items import seen_by
from cg.card_boards_and_ob import woods_line
from cg.seal import concealed_stacks
from cg.state import SIDES
from cg.units import IN_PLAY
from projections.words import terrain_words
from types import SimpleNamespace


def _units(st, counters: bool = False) -> dict:
    """Units with a recorded hex: "axis 4-6-7 (I1-1.1)" for the text map, (side, counter name) for the
    SVG's counters; a concealed unit this view cannot open is a "?" (ruling R112, A12.1)."""
    out: dict = {}
    for u in st.units.values():
        if u.hex and u.status in IN_PLAY:
            out.setdefault(u.hex, []).append((u.side, u.name) if counters else f"{u.side} {u.name} ({u.id})")
    for h, sides in concealed_stacks(st).items():
        out.setdefault(h, []).extend((s, "?") if counters else f"{s} ? (concealed)" for s in sides)
    return out


GROUND_KEYS = ("water", "buildings", "stone", "woods", "orchard", "brush", "grain", "roads", "bridges")


def ground(card_map) -> dict:
    """The ground the card maps (cg-card.md's terrain keys), for the SVG."""
    return {k: tuple(getattr(card_map, k)) for k in GROUND_KEYS}


def grown(st) -> frozenset:
    """1.4 (rules revision 2): the Strategic Terrain the campaign has grown beyond the card's (rubble,
    pillboxes, entrenchments, emplaced Guns); ruling R46: it carries no TVP."""
    return frozenset(st.strategic()) - frozenset(st.card.map.strategic)


def terrain_seen(st, viewer: str | None = None) -> dict:
    """The terrain kept (CG5) as `viewer` sees it (ruling R22): the other side's Dummy Minefields as Known
    Minefields until the CG's end reveals them; everything as kept for no viewer."""
    if viewer is None or st.ended:
        return st.ground.terrain
    return {h: [seen_by(i, viewer) for i in items] for h, items in st.ground.terrain.items()}


def map_json(st, viewer: str | None = None) -> dict:
    st.load_all()  # the settled units too (a state loaded for a command lacks them)
    mc = st.map_control()
    new = grown(st)
    terrain = terrain_seen(st, viewer)
    hexes = {}
    for h, c in mc.hexes.items():
        hexes[h] = {"controller": c.controller, "strategic": c.strategic, "cthc": c.cthc, "nml": c.nml,
                    "mlr": sorted(c.mlr), "uncontrolled": c.uncontrolled, "isolated": c.isolated,
                    "terrain": list(map(str, terrain.get(h, []))), "tvp": st.card.map.tvp.get(h, 0),
                    "grown": h in new}
    return {"columns": st.card.map.columns, "rows": st.card.map.rows,
            "boards": [list(r) for r in st.card.map.boards], "friendly_edge": st.card.map.friendly_edge,
            "control": dict(sorted(st.controlled().items())), "hexes": hexes,
            **({"concealed": concealed} if (concealed := concealed_stacks(st)) else {}),  # ruling R112: "?" stacks
            "counts": {side: {"cthc": sum(1 for c in mc.hexes.values() if c.cthc == side),
                              "mlr": sum(1 for c in mc.hexes.values() if side in c.mlr)} for side in SIDES}}


def map_text(st, viewer: str | None = None) -> str:
    st.load_all()  # the settled units too (a state loaded for a command lacks them)
    # lazy: `plcg map --json` (and the replay's map JSON) draw nothing: mapview (~30 ms) is for text and SVG
    from projections.mapview import render_text  # lazy: projections.mapview (~39 ms) only for maps

    return render_text(st.grid(), st.map_control(), terrain=terrain_seen(st, viewer), units=_units(st),
                       why=strategic_why(st))


def strategic_why(st) -> dict[str, list[str]]:
    """Why each Strategic Terrain hex is one (1.4): what the CG Card gives it (a TVP, a building, a bridge, the
    Woods-Line: ruling R37, or its list), or what the campaign grew there (a fortification, rubble, an
    emplaced Gun: rules revision 2, ruling R46, no TVP). A hex may have more than one reason."""
    m = st.card.map
    woods = woods_line(st.grid(), tuple(m.woods)) if m.woods else set()
    buildings, bridges = set(m.buildings), set(m.bridges)
    card = set(m.strategic)
    out: dict[str, list[str]] = {}
    for h in sorted(st.strategic()):
        reasons = []
        if h in card:
            if m.tvp.get(h):
                reasons.append(f"card TVP {m.tvp[h]}")
            if h in buildings:
                reasons.append("a building on the card")
            if h in bridges:
                reasons.append("a bridge on the card")
            if h in woods:
                reasons.append("on the Woods-Line (ruling R37)")
            if not reasons:
                reasons.append("listed as Strategic Terrain on the card")
        else:
            grew = [terrain_words(i) for i in st.ground.terrain.get(h, []) if getattr(i, "grows", False)]
            if grew:
                reasons.append(f"grown by {', '.join(grew)} (1.4, ruling R46: no TVP)")
            else:  # the one other thing that grows Strategic Terrain: a Gun emplaced there
                reasons.append("grown by an emplaced Gun (1.4, ruling R46: no TVP)")
        out[h] = reasons
    return out


def map_svg(st, title: str | None = None, viewer: str | None = None, id_prefix: str = "", cls: str = "") -> str:
    """The map as an SVG (projections.mapview.render_svg); `id_prefix` and `cls` as there: for a page
    holding several (the HTML report)."""
    st.load_all()  # the settled units too (a state loaded for a command lacks them)
    from projections.mapview import render_svg  # lazy: as in map_text

    t = title or f"{st.card.campaign.name} — firefight {st.firefight}, step {st.step}"
    svg = render_svg(st.grid(), st.map_control(), terrain=terrain_seen(st, viewer), units=_units(st, counters=True),
                     title=t,
                     tvp=dict(st.card.map.tvp), ground=ground(st.card.map), grown=grown(st),
                     hills=dict(st.card.map.hills), hexsides=dict(st.card.map.hexsides), id_prefix=id_prefix, cls=cls)
    m = st.card.map
    if m.boards:  # board names and joins (projections/mapcard.py); water and bridges are mapview's ground

        from projections.mapcard import overlay  # lazy: only a map of boards draws them

        svg = overlay(svg, SimpleNamespace(water=(), bridges=(), boards=m.boards), st.grid())
    return svg
